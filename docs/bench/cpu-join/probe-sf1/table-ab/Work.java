import java.util.SplittableRandom;
/** Builds keys: r keys (dup rows each), 1 in keep valid; s probe keys drawn from the r; dense or scrambled. */
public class Work {
  public final long[] bk, val, pk;
  public Work(int r, int s, int dup, int keep, boolean dense) {
    SplittableRandom rnd = new SplittableRandom(1);
    long mul = dense ? 1 : 0xD6E8FEB86659FD93L;
    bk = new long[r * dup]; val = new long[(bk.length + 63) / 64];
    int[] perm = new int[bk.length];
    for (int i = 0; i < bk.length; i++) perm[i] = i % r;
    for (int i = bk.length - 1; i > 0; i--) { int j = rnd.nextInt(i + 1); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    for (int i = 0; i < bk.length; i++) { bk[i] = perm[i] * mul; if (perm[i] % keep == 0) val[i >>> 6] |= 1L << i; }
    pk = new long[s]; for (int i = 0; i < s; i++) pk[i] = rnd.nextInt(r) * mul;
  }
}
