package dev.once;

/** A setting given to a builder is invalid; the message names its path and value. */
public class ConfigurationException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public ConfigurationException(String path, String problem) {
    super(path + " " + problem);
    this.path = path;
  }

  /** The path of the bad setting, e.g. {@code consumer.batchSize}. */
  public String path() {
    return path;
  }
}
