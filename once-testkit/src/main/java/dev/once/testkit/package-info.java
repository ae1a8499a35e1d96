/**
 * Proof kit: {@link dev.once.testkit.HandlerKit} runs your handler through every consumer crash
 * window and concurrent redelivery on your database; the transport and pipeline contracts check a
 * transport; {@link dev.once.testkit.CrashPoint} names the windows.
 */
package dev.once.testkit;
