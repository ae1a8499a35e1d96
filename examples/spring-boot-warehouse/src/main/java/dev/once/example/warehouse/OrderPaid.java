package dev.once.example.warehouse;

/** An order was paid: the warehouse must dispatch it, once. */
public record OrderPaid(long orderId, long amountCents) {}
