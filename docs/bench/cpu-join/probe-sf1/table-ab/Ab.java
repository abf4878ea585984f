import java.net.*; import java.nio.file.*; import java.util.*; import java.lang.reflect.*;
/**
 * The join hash table's build and batched probe, two builds of it in one JVM: each variant's classes (its Driver and
 * gpu-runtime's classes, "dir+classes") in a class loader of its own, repetitions interleaved, thread CPU time per
 * probe row, min and median. Usage: Ab VARIANTS R S DUP KEEP dense|sparse REPS; R keys (DUP rows each, one key in
 * KEEP valid), S probe keys drawn from all R keys. "#N" after a variant sets spillway.exp.bucketExtra (an experiment
 * knob of the session, absent from the committed code).
 */
public class Ab {
  static long cpu() { return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(); }
  public static void main(String[] a) throws Exception {
    String[] dirs = a[0].split(","); int r = Integer.parseInt(a[1]), s = Integer.parseInt(a[2]), dup = Integer.parseInt(a[3]), keep = Integer.parseInt(a[4]); boolean dense = a[5].equals("dense"); int reps = Integer.parseInt(a[6]);
    Work w = new Work(r, s, dup, keep, dense);
    Object[] drivers = new Object[dirs.length]; Method[] run = new Method[dirs.length];
    for (int v = 0; v < dirs.length; v++) {
      String spec = dirs[v]; if (spec.contains("#")) { System.setProperty("spillway.exp.bucketExtra", spec.substring(spec.indexOf('#') + 1)); spec = spec.substring(0, spec.indexOf('#')); } String[] parts = spec.split("\\+");
      URL[] urls = new URL[parts.length]; for (int i = 0; i < parts.length; i++) urls[i] = Path.of(parts[i]).toUri().toURL();
      ClassLoader l = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
      Class<?> c = l.loadClass("Driver"); drivers[v] = c.getConstructor().newInstance();
      c.getMethod("build", long[].class, long[].class, long[].class).invoke(drivers[v], w.bk, w.val, w.pk);
      run[v] = c.getMethod("run");
    }
    double[][] t = new double[dirs.length][reps]; long[] res = new long[dirs.length];
    for (int rep = -3; rep < reps; rep++) for (int v = 0; v < dirs.length; v++) {
      long c0 = cpu(); res[v] = (Long) run[v].invoke(drivers[v]); long c1 = cpu();
      if (rep >= 0) t[v][rep] = (c1 - c0) / (double) s;
    }
    for (int v = 0; v < dirs.length; v++) { Arrays.sort(t[v]); System.out.printf("  v%d min %6.1f  median %6.1f ns/row  (%d)%n", v, t[v][0], t[v][reps / 2], res[v]); }
  }
}
