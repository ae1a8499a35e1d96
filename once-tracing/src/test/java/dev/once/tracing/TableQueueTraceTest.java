package dev.once.tracing;

import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import javax.sql.DataSource;

class TableQueueTraceTest extends TracePipelineContract {
  @Override
  Transport transport(DataSource ds) {
    return TableQueueTransport.create(ds);
  }
}
