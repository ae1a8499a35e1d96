package dev.once.spring.autoconfigure;

import dev.once.Once;
import dev.once.RequestKeys;
import dev.once.RequestKeysBuilder;
import dev.once.spring.Idempotent;
import dev.once.web.ClientScope;
import dev.once.web.IdempotencyFilter;
import dev.once.web.IdempotencySettings;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Idempotency-Key for {@code @Idempotent} Spring MVC handler methods (module once-web): a servlet
 * filter (after Spring Security's, so the principal is known) that finds the request's handler
 * method and, if it is {@link Idempotent}, runs the request in one Once transaction — on the
 * application's transaction manager, through {@code SpringTransactions} — with its key and the
 * response it returns. Properties {@code once.http.*}.
 */
@AutoConfiguration(after = OnceAutoConfiguration.class)
@ConditionalOnClass({IdempotencyFilter.class, RequestMappingHandlerMapping.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(OnceHttpProperties.class)
public class OnceHttpAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnBean(Once.class)
  public RequestKeys onceRequestKeys(Once once, OnceHttpProperties p) {
    RequestKeysBuilder b = once.requestKeys();
    if (p.getRetention() != null) {
      b.retention(p.getRetention());
    }
    if (p.getMaxWait() != null) {
      b.maxWait(p.getMaxWait());
    }
    if (p.getMaxResponseBytes() != null) {
      b.maxResponseBytes(p.getMaxResponseBytes());
    }
    return b.build().start();
  }

  /** once-web's settings with what {@code once.http.*} sets; the rest keeps once-web's defaults. */
  static IdempotencySettings.Builder settings(OnceHttpProperties p) {
    IdempotencySettings.Builder b = IdempotencySettings.builder();
    if (p.getHeaderName() != null) {
      b.headerName(p.getHeaderName());
    }
    if (p.getFingerprintHeaders() != null) {
      b.fingerprintHeaders(p.getFingerprintHeaders());
    }
    if (p.getStoredHeaders() != null) {
      b.storedHeaders(Set.copyOf(p.getStoredHeaders()));
    }
    if (p.getMaxRequestBytes() != null) {
      b.maxRequestBytes(p.getMaxRequestBytes());
    }
    return b;
  }

  /**
   * The filter gets its request keys at the first keyed request: filters are created as the web
   * server starts, before the application's migrations ran (and request keys check their table).
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(Once.class)
  public IdempotencyFilter onceIdempotencyFilter(
      ObjectProvider<RequestKeys> keys,
      OnceHttpProperties p,
      ObjectProvider<RequestMappingHandlerMapping> mappings) {
    IdempotencySettings.Builder base = settings(p).scope(scope(p));
    IdempotencySettings required = base.required(true).build();
    IdempotencySettings optional = base.required(false).build();
    return new IdempotencyFilter(
        keys::getObject,
        request -> {
          Idempotent a = annotation(mappings, request);
          if (a == null) {
            return null;
          }
          boolean req =
              a.required() == Idempotent.Required.DEFAULT
                  ? p.isRequired()
                  : a.required() == Idempotent.Required.YES;
          return req ? required : optional;
        });
  }

  /** The client scope of {@code once.http.scope}, telling a request without one which to set. */
  static ClientScope scope(OnceHttpProperties p) {
    return switch (p.getScope()) {
      case PRINCIPAL ->
          ClientScope.principal()
              .whenMissing(
                  "this request has no authenticated principal, and @Idempotent keys are scoped by"
                      + " client (once.http.scope=principal, the default): put Spring Security"
                      + " (or another login) in front, or set once.http.scope=shared in an"
                      + " application without login, or once.http.scope=header (header"
                      + " once.http.scope-header, X-Client-Id) behind a gateway that sets it");
      case HEADER ->
          ClientScope.header(p.getScopeHeader())
              .whenMissing(
                  "this request has no "
                      + p.getScopeHeader()
                      + " header, and @Idempotent keys are scoped by it (once.http.scope=header,"
                      + " once.http.scope-header): send it, or have the gateway in front of the"
                      + " application set it");
      case SHARED -> ClientScope.shared();
    };
  }

  /** The {@link Idempotent} of the handler method the request maps to, or null. */
  static Idempotent annotation(
      ObjectProvider<RequestMappingHandlerMapping> mappings, HttpServletRequest request) {
    for (RequestMappingHandlerMapping m : mappings) {
      try {
        HandlerExecutionChain chain = m.getHandler(request);
        if (chain != null && chain.getHandler() instanceof HandlerMethod h) {
          return h.getMethodAnnotation(Idempotent.class);
        }
      } catch (Exception e) {
        return null; // no mapping: the dispatcher answers as it would
      }
    }
    return null;
  }
}
