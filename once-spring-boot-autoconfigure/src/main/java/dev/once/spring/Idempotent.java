package dev.once.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring MVC handler method as keyed by the client's Idempotency-Key (module once-web,
 * properties {@code once.http.*}): the request runs in one transaction with its key and the
 * response it returns, so a retry gets that response and never a second change. Whatever the method
 * writes through {@code JdbcTemplate}, JPA or {@link OncePublisher} joins that transaction. See
 * docs/HTTP.md.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

  /** Whether a request without the key is refused with 400 ({@code once.http.required}). */
  Required required() default Required.DEFAULT;

  /** Whether the key is required on this method. */
  enum Required {
    /** As {@code once.http.required} says (true unless set). */
    DEFAULT,
    YES,
    NO
  }
}
