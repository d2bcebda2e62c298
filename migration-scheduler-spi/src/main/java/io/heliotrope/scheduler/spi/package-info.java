/**
 * The placement-policy SPI (DESIGN.md section 7, the Supercloud paper section 3.4): what a
 * plugin implements so that the scheduler can decide where an application's VMs run.
 *
 * <h2>The contract</h2>
 * <ul>
 *   <li>A plugin jar names one {@link io.heliotrope.scheduler.spi.Plugin} in
 *       {@code META-INF/services/io.heliotrope.scheduler.spi.Plugin}; the scheduler loads each
 *       jar (or each directory of jars) of its plugins directory in a class loader of its own,
 *       which sees this package and the JDK, nothing else of Heliotrope's.</li>
 *   <li>Sites are numbered {@code 0..n-1} in the order of their names; a {@link
 *       io.heliotrope.scheduler.spi.Plan} gives each VM of the application, in the order of
 *       {@link io.heliotrope.scheduler.spi.Application#vms()} (sorted by name), the number of
 *       its site.</li>
 *   <li>Units: round-trip times in microseconds ({@code long}), rates per second.</li>
 *   <li>Scores: higher is better. A score is a finite {@code double}, the same bit for bit
 *       every time the same plan is scored by the same scorer (the search compares scores
 *       with {@code ==}, and so does its brute-force oracle).</li>
 *   <li>The scheduler moves an application when the best plan's score is at least the
 *       current plan's plus the application's threshold; among the best plans it takes the
 *       one with the fewest migrations, then the smallest list of site names in VM order.</li>
 *   <li>An exception thrown by a policy or a scorer is caught: the decision for that
 *       application is recorded as failed with the exception's message, nothing moves, and
 *       the next period tries again.</li>
 * </ul>
 */
package io.heliotrope.scheduler.spi;
