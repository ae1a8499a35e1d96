package dev.once.example.warehouse;

/** A dispatch job was created for an order. */
public record DispatchQueued(long orderId, long jobId) {}
