package dev.once.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The dashboard (module once-dashboard) served by the application: {@code once.dashboard.*}. */
@ConfigurationProperties(prefix = "once.dashboard")
public class OnceDashboardProperties {
  /** Serve the dashboard (it opens a port, so it is off unless asked for). */
  private boolean enabled;

  /** The port the dashboard listens on (0 picks a free one). */
  private int port = 8081;

  /** The address the dashboard listens on (127.0.0.1: this machine only). */
  private String bind = "127.0.0.1";

  /** The token replays, discards and reveals need (at least 16 characters; random when empty). */
  private String token = "";

  /** Show only: no replay, discard or payload reveal. */
  private boolean readOnly;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public int getPort() {
    return port;
  }

  public void setPort(int port) {
    this.port = port;
  }

  public String getBind() {
    return bind;
  }

  public void setBind(String bind) {
    this.bind = bind;
  }

  public String getToken() {
    return token;
  }

  public void setToken(String token) {
    this.token = token;
  }

  public boolean isReadOnly() {
    return readOnly;
  }

  public void setReadOnly(boolean readOnly) {
    this.readOnly = readOnly;
  }
}
