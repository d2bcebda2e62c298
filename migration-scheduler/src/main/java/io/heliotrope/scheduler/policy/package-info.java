/**
 * The built-in placement policies of the Supercloud paper, section 3.4 (DESIGN.md section 7):
 * {@code single-vm} ({@link io.heliotrope.scheduler.policy.SingleVmPolicy}, 3.4.1) and
 * {@code ensemble} ({@link io.heliotrope.scheduler.policy.EnsemblePolicy}, 3.4.2), offered by
 * {@link io.heliotrope.scheduler.policy.BuiltinPlugin} like any plugin's. Both read the RTT
 * matrix with unknown entries as 0: a scored plan never has one, and 0 keeps a bound an
 * upper bound because every weight is {@code >= 0}.
 */
package io.heliotrope.scheduler.policy;
