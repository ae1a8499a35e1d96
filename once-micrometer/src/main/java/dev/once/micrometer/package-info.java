/**
 * Once's workload metrics for Micrometer: {@link dev.once.micrometer.MicrometerListener} counts
 * every outcome, {@link dev.once.micrometer.WorkloadGauges} reads oldest ages and backlogs.
 */
package dev.once.micrometer;
