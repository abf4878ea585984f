import org.spillway.gpu.join.hash.JoinHashTable;
public class Driver {
  JoinHashTable t; long[] pk;
  public void build(long[] bk, long[] val, long[] pk) { t = JoinHashTable.build(bk, val, bk.length, 1, () -> false); this.pk = pk; }
  public long run() {
    int[] f = new int[64]; long cnt = 0; int s = pk.length;
    
    for (int from = 0; from < s; from += 64) {
      int to = Math.min(s, from + 64);
      t.firsts(pk, null, from, to, f);
      for (int i = 0; i < to - from; i++) for (int p = f[i]; p >= 0; p = t.next(p)) { cnt += t.row(p) + 1; }
    }
    return cnt;
  }
}
