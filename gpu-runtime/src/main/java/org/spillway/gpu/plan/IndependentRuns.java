package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * Runs parts of a plan that do not depend on each other (a probe pipeline's build sides and its source, the two
 * inputs of a join) side by side on the engine's workers. A part of a short query is often a pipeline of a morsel
 * or two, or a tiny build side, which leaves most cores idle; run one after another, each also waits for the
 * previous one's last morsel. The calling thread runs a part itself, so a run nested in a worker's task never waits
 * for a free worker; with one thread the parts run in order.
 */
final class IndependentRuns {
  /**
   * System property: {@code false} runs every plan's parts one after another, as before they ran side by side. For
   * comparing the two in one JVM (a benchmark configuration's {@code -D} switch).
   */
  static final String SIDE_BY_SIDE_PROPERTY = "spillway.plan.sideBySide";

  private IndependentRuns() {}

  /**
   * Whether parts that run {@code nodes} may run side by side: at most one of them uses the GPU ({@link
   * PlanNode#cpuOnly}), so that no two GPU runs contend for device memory, while the CPU's parts run beside the GPU's.
   */
  static boolean sideBySide(List<PlanNode> nodes) {
    return nodes.stream().filter(node -> !node.cpuOnly()).count() <= 1;
  }

  /**
   * The results of {@code parts}, in their order: side by side if {@code sideBySide} (see {@link #sideBySide}), else
   * one after another; the first failure is thrown once the parts under way ended.
   */
  static <T> List<T> run(RunContext context, boolean sideBySide, List<Supplier<T>> parts) {
    Object[] results = new Object[parts.size()];
    boolean allowed = !"false".equals(System.getProperty(SIDE_BY_SIDE_PROPERTY));
    MorselScheduler.forEach(parts.size(), sideBySide && allowed ? context.threads() : 1, () -> false,
        (worker, part) -> results[part] = parts.get(part).get());
    @SuppressWarnings("unchecked")
    List<T> out = (List<T>) new ArrayList<>(Arrays.asList(results));
    return out;
  }
}
