package dev.once.example.warehouse;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A warehouse service on the Once starter: {@code POST /orders} stores a paid order and publishes
 * {@link OrderPaid} in one transaction; {@link DispatchHandler} turns each {@code OrderPaid} into
 * exactly one dispatch job and publishes {@link DispatchQueued}.
 *
 * <p>Without {@code --spring.datasource.url} it starts an embedded PostgreSQL (data in {@code
 * .once/warehouse-pg}); see {@link EmbeddedDatabase}.
 */
@SpringBootApplication
public class WarehouseApplication {

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(WarehouseApplication.class);
    app.addListeners(new EmbeddedDatabase());
    app.run(args);
  }
}
