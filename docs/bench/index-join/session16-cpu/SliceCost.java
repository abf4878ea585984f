import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.spillway.gpu.index.SortedKeyColumn;

/** Host cost of TranslationSlices.of over a column of GIB GiB (row r holds 4r, as IndexJoinBenchmark's R). */
public class SliceCost {
  public static void main(String[] args) throws Exception {
    long gib = Long.parseLong(args[0]);
    long rows = (gib << 30) / 8;
    Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    f.setAccessible(true);
    sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
    long address = u.allocateMemory(rows * 8);
    for (long r = 0; r < rows; r++) {
      u.putLong(address + r * 8, 4 * r);
    }
    SortedKeyColumn column = SortedKeyColumn.ofLongs(address, rows);
    Class<?> radixClass = Class.forName("org.spillway.gpu.join.inlj.WindowRadix");
    Method radixOf = radixClass.getDeclaredMethod("of", SortedKeyColumn.class);
    radixOf.setAccessible(true);
    Object radix = radixOf.invoke(null, column);
    Class<?> slicesClass = Class.forName("org.spillway.gpu.join.inlj.TranslationSlices");
    Method of = slicesClass.getDeclaredMethod("of", SortedKeyColumn.class, radixClass, long.class);
    of.setAccessible(true);
    Method count = slicesClass.getDeclaredMethod("count");
    count.setAccessible(true);
    for (int run = 0; run < 7; run++) {
      long t0 = System.nanoTime();
      Object slices = of.invoke(null, column, radix, 1L << 30);
      long t1 = System.nanoTime();
      System.out.printf("R %d GiB, reach 1g: %d slices in %.3f ms%n", gib, count.invoke(slices), (t1 - t0) / 1e6);
    }
  }
}
