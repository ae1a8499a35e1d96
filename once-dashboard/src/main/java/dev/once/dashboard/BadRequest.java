package dev.once.dashboard;

/** A request the dashboard refuses, with the HTTP status and a message naming what was wrong. */
final class BadRequest extends RuntimeException {
  final int status;

  BadRequest(int status, String message) {
    super(message);
    this.status = status;
  }

  /** 400: a parameter or body field is missing or malformed. */
  static BadRequest of(String message) {
    return new BadRequest(400, message);
  }
}
