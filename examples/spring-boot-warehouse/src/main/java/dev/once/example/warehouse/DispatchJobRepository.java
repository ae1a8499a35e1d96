package dev.once.example.warehouse;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface DispatchJobRepository extends JpaRepository<DispatchJob, Long> {
  List<DispatchJob> findByOrderId(long orderId);
}
