/**
 * Operations and their reconciler: an operation row per call ({@code OperationStore}, {@code
 * NewOperation}), run and settled by {@code OperationRunner}, found again when due by {@code
 * ReconcilerImpl} through {@code DueClaims} and {@code Reconciliation}; the entry point is {@code
 * OperationsImpl}. Not API.
 */
package dev.once.internal.operations;
