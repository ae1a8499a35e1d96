/**
 * Request keys: an HTTP request key claimed, committed with the work it guards and swept when old
 * ({@code RequestKeysImpl}). Not API.
 */
package dev.once.internal.requests;
