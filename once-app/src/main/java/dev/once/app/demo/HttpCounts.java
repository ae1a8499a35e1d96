package dev.once.app.demo;

import dev.once.scenario.http.OrderClient;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the HTTP front's client and server saw: requests sent, answers that never came (lost by the
 * server after its commit, or cut by an injected crash), retries, replayed answers.
 */
record HttpCounts(OrderClient.Counts client, long lostByServer) {

  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("requests", client.requests());
    json.put("responses_lost", client.cut());
    json.put("responses_lost_after_commit", lostByServer);
    json.put("retries", client.retries());
    json.put("replayed", client.replayed());
    return json;
  }
}
