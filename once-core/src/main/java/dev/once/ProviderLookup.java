package dev.once;

/**
 * Asks the provider what became of an operation whose outcome is unknown, by its idempotency key or
 * by a reference (the operation id, sent as metadata). Called before any retry of an uncertain
 * operation. Throwing means the provider could not be asked now: the operation stays UNKNOWN and is
 * reconciled later.
 */
@FunctionalInterface
public interface ProviderLookup {
  LookupAnswer lookup(String idempotencyKey, String operationId) throws Exception;

  /** For a provider that offers no lookup: every answer is "cannot tell". */
  ProviderLookup NONE = (key, operationId) -> LookupAnswer.cannotTell("the provider has no lookup");
}
