/**
 * The wiring of the engine: what builds the parts and hands each its context ({@code OnceImpl}),
 * holds the engines an instance started ({@code Engines}), checks a consumer before it is built
 * ({@code ConsumerChecks}, {@code DeliveryLimitCheck}) and registers the shipped dialects ({@code
 * ShippedDialects}). The one package that names every part; {@code dev.once.OnceBuilder} is its one
 * caller, and no part names it back (core's {@code EnginePartsTest}).
 */
package dev.once.internal.wiring;
