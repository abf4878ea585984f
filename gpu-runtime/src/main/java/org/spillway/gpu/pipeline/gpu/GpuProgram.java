package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.List;

/**
 * The register program that the columnar_pipeline kernel interprets per row: the filter and project stages
 * before a pipeline's aggregation, flattened once into instructions {op, dst, a, b} over int64 registers,
 * each with a NULL flag, plus the aggregation's key and argument registers. Registers 0..MAX_COLUMNS-1 hold
 * the input columns the program reads, loaded by a LOAD at each use (a no-op once loaded), so that under
 * BRANCHING a row the filters reject never loads the columns only later stages read. A filter's top-level
 * conjuncts become one FILTER each (the CPU backend drops a row at the first conjunct that is not TRUE);
 * AND, OR and CASE jump past what they do not need, so a row evaluates exactly the operands the CPU backend
 * evaluates for it (a guarded division never divides by zero on either device). AND and OR follow Kleene's
 * logic: a NULL operand does not decide, a later FALSE (AND) or TRUE (OR) still does. A pipeline without an
 * aggregation compiles to the same program plus the registers of its output columns, which the
 * columnar_pipeline_rows kernel writes back for the selected rows. A hash-join probe stage becomes a PROBE of a
 * join table resident in GPU memory ({@link GpuJoinTables}); the build side's columns that later stages read are
 * LOAD_BUILDs at the probe's build row, column slots of their own whose NULL bits follow the input columns'.
 * FLOAT64 values (a residual such as TPC-H Q17's {@code CAST(l_quantity AS DOUBLE) < 0.2 * avg}) live in the
 * same registers as their IEEE-754 bits and are computed with Java's rounding (round to nearest, no fused
 * multiply-add); they may feed comparisons and CASEs but never an aggregate, a group key or an output column,
 * whose GPU paths hold exact values only. A LIKE of a plain-text input column and a pattern of literal pieces
 * between {@code %}s is one LIKE_TEXT over the column's slot, whose offsets and UTF-8 bytes the kernel reads in
 * place ({@link GpuTextColumns}); nothing else reads text.
 */
final class GpuProgram {
  /** Registers per thread in the kernel (kMaxRegisters in columnar_pipeline.cu): one bit each in a NULL mask. */
  static final int MAX_REGISTERS = 64;
  /** Input columns a launch can take (kMaxColumns in pipeline_chunks.cuh). */
  static final int MAX_COLUMNS = 12;
  /** Build-side columns a program can read (kMaxBuildColumns in pipeline_program.cuh). */
  static final int MAX_BUILD_COLUMNS = 16;
  /** Join kinds of a PROBE, as in pipeline_program.cuh. */
  static final int JOIN_INNER = 0;
  static final int JOIN_LEFT = 1;
  static final int JOIN_SEMI = 2;
  static final int JOIN_ANTI = 3;
  /**
   * A mark join's probe: marks, per mark, every build row of the probe row's key whose condition holds (a PROBE_ALL
   * ... PROBE_NEXT loop; its table keeps duplicate keys) and passes no row on.
   */
  static final int JOIN_MARK = 4;
  /** Aggregate calls a launch can take (kMaxCalls). */
  static final int MAX_CALLS = 16;
  /** Bit of a NULL-dependency mask meaning "NULL whatever the columns hold" (a NULL literal). */
  static final long ALWAYS_NULLABLE = 1L << 63;

  // Opcodes, as in columnar_pipeline.cu.
  static final int LOAD = 0;
  static final int CONST = 1;
  static final int CONST_NULL = 2;
  static final int MOV = 3;
  static final int CMP_EQ = 4;
  static final int IN_RANGES = 10;
  static final int NOT = 11;
  static final int IS_NULL = 12;
  static final int JUMP_IF_FALSE = 13;
  static final int JUMP_IF_TRUE = 14;
  static final int JUMP_IF_NOT_TRUE = 15;
  static final int JUMP = 16;
  static final int MERGE_NULL = 17;
  static final int ADD = 18;
  static final int SUB = 19;
  static final int CHECK_INT32 = 22;
  static final int SCALE = 23;
  static final int YEAR = 24;
  static final int FILTER = 25;
  static final int PROBE = 26;
  static final int LOAD_BUILD = 27;
  static final int PACK = 28;
  /** FLOAT64 comparisons (EQ..GE in CompareOp order) and arithmetic (PLUS..DIVIDE), on the registers' bits. */
  static final int FCMP_EQ = 29;
  static final int FADD = 35;
  /** An exact value of a given scale as a FLOAT64: the long converted, then divided by 10^scale (a constant). */
  static final int TO_DOUBLE = 39;
  /**
   * {@code [NOT] LIKE} of a plain-text column slot (operand a, never read as a value) and a pattern of literal
   * pieces between {@code %}s (operand b: the constants piece count n, n byte lengths, then the UTF-8 bytes packed
   * little-endian, 8 a word); NULL text gives NULL.
   */
  static final int LIKE_TEXT = 40;
  /**
   * The loop of a JOIN_MARK probe: PROBE_ALL (destination: the build row register, the next one its slot; operand
   * a: the key; b: constants join and the loop's exit) finds the key's first build row, PROBE_NEXT (b: join and the
   * loop's body) the next, and each MARK (destination: the build row register; a: the condition; b: constants join
   * and mark) in between sets its mark where the condition is TRUE.
   */
  static final int PROBE_ALL = 41;
  static final int PROBE_NEXT = 42;
  static final int MARK = 43;

  /** Thrown while compiling when the GPU cannot run something; the message is the reason. */
  static final class Unsupported extends RuntimeException {
    Unsupported(String reason) {
      super(reason, null, false, false);
    }
  }

  /** Instructions, four ints each. */
  final int[] code;
  final long[] constants;
  /** Pipeline input column read into register i, for i below the count of used columns. */
  final int[] columns;
  /** Whether input column {@code columns[i]} is 8 bytes wide (else 4, or plain text). */
  final boolean[] wide;
  /**
   * Whether input column {@code columns[i]} is plain text (Arrow VarChar), which only LIKE_TEXT reads: its offsets
   * and bytes are read in place, not streamed.
   */
  final boolean[] text;
  /** Per aggregate call: kind ordinal and argument register (-1 for COUNT(*)). */
  final int[] calls;
  /** Per aggregate call: the columns (bits of register numbers) whose NULLs can make its argument NULL. */
  final long[] callNullDeps;
  /**
   * Per group key: register and packed width in bits: 64, 32, or fewer for a key of known range, whose register
   * then holds the value minus {@link #keyOffsets}[k].
   */
  final int[] keys;
  /** Per group key: what its packed value is offset by (0 but for keys packed by their range). */
  final long[] keyOffsets;
  /** Per group key: the columns whose NULLs can make it NULL, as for calls. */
  final long[] keyNullDeps;
  /** The expression each instruction belongs to, for error messages. */
  final Expr[] origins;
  /** Per output column of a pipeline without an aggregation: its register (empty for an aggregating one). */
  final int[] outputs;
  /** Per output column: the columns whose NULLs can make it NULL, as for calls. */
  final long[] outputNullDeps;
  /**
   * Per output column of a rows program: null, or {probe, build column} where the kernel returns the INNER probe's
   * build row id and the host gathers the value from the build side (TEXT payloads, such as Q21's s_name).
   */
  int[][] gatheredOutputs = new int[0][];
  /**
   * Per probe stage, in pipeline order: its join kind (JOIN_*) and the build side's key columns (two 32-bit ones
   * packed high then low into one 64-bit key, as PACK packs the probe side's).
   */
  final int[] joinKinds;
  final int[][] joinBuildKeys;
  /** Per probe stage: the marks it sets per build row (one per join a JOIN_MARK stands for, else 0). */
  final int[] joinMarks;
  /** Per build column slot s (NULL bit MAX_COLUMNS + s): the probe it belongs to and the build side's column. */
  final int[] slotJoins;
  final int[] slotColumns;

  private GpuProgram(GpuProgramBuilder b, int[] calls, long[] callNullDeps, int[] keys, long[] keyNullDeps,
      long[] keyOffsets) {
    this(b, calls, callNullDeps, keys, keyNullDeps, keyOffsets, new int[0], new long[0]);
  }

  private GpuProgram(GpuProgramBuilder b, int[] calls, long[] callNullDeps, int[] keys, long[] keyNullDeps,
      long[] keyOffsets, int[] outputs, long[] outputNullDeps) {
    this.code = b.code.stream().mapToInt(Integer::intValue).toArray();
    this.constants = b.constants.stream().mapToLong(Long::longValue).toArray();
    this.columns = b.columns.stream().mapToInt(Integer::intValue).toArray();
    this.wide = new boolean[columns.length];
    this.text = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      text[i] = b.inputTypes.get(columns[i]).kind() == ExprType.Kind.TEXT;
      wide[i] = !text[i] && b.inputTypes.get(columns[i]).width() == 8;
    }
    this.calls = calls;
    this.callNullDeps = callNullDeps;
    this.keys = keys;
    this.keyNullDeps = keyNullDeps;
    this.keyOffsets = keyOffsets;
    this.origins = b.origins.toArray(new Expr[0]);
    this.outputs = outputs;
    this.outputNullDeps = outputNullDeps;
    this.joinKinds = b.joinKinds.stream().mapToInt(Integer::intValue).toArray();
    this.joinBuildKeys = b.joinBuildKeys.toArray(new int[0][]);
    this.joinMarks = b.joinMarks.stream().mapToInt(Integer::intValue).toArray();
    this.slotJoins = b.slots.stream().mapToInt(slot -> slot[0]).toArray();
    this.slotColumns = b.slots.stream().mapToInt(slot -> slot[1]).toArray();
  }

  /** Whether the program probes hash joins. */
  boolean probes() {
    return joinKinds.length > 0;
  }

  /** Whether the program reads a plain-text column (LIKE_TEXT). */
  boolean readsText() {
    for (boolean t : text) {
      if (t) {
        return true;
      }
    }
    return false;
  }

  int length() {
    return code.length / 4;
  }

  /** Bit c set when column slot c is 8 bytes wide. */
  int wideMask() {
    int mask = 0;
    for (int c = 0; c < wide.length; c++) {
      mask |= wide[c] ? 1 << c : 0;
    }
    return mask;
  }

  /** Whether a value with these NULL dependencies can be NULL when the columns of {@code nullableColumns} hold NULLs. */
  static boolean mayBeNull(long deps, long nullableColumns) {
    return (deps & (nullableColumns | ALWAYS_NULLABLE)) != 0;
  }

  /**
   * Compiles the stages before {@code aggregate} (Filter and Project) and the aggregate itself; throws
   * {@link Unsupported} with the reason when the kernel cannot run them exactly.
   */
  static GpuProgram compile(List<ExprType> inputTypes, List<PipelineStage> before, PipelineStage.Aggregate aggregate) {
    GpuProgramBuilder b = new GpuProgramBuilder(inputTypes);
    List<Integer> current = b.stages(before);
    List<ExprType> types = typesAfter(inputTypes, before);
    if (aggregate.calls().size() > MAX_CALLS) {
      throw new Unsupported(aggregate.calls().size() + " aggregate calls; the kernel takes " + MAX_CALLS);
    }
    int[] calls = new int[2 * aggregate.calls().size()];
    long[] callNullDeps = new long[aggregate.calls().size()];
    for (int c = 0; c < aggregate.calls().size(); c++) {
      AggCall call = aggregate.calls().get(c);
      if (call.argument() >= 0 && !types.get(call.argument()).isLong()) {
        throw new Unsupported(call.kind() + " of " + types.get(call.argument()) + " (only exact and long-lane values)");
      }
      calls[2 * c] = call.kind().ordinal();
      calls[2 * c + 1] = call.argument() < 0 ? -1 : b.use(current, call.argument());
      callNullDeps[c] = call.argument() < 0 ? 0 : b.deps(calls[2 * c + 1]);
    }
    int[] keys = new int[2 * aggregate.groupKeys().length];
    long[] keyNullDeps = new long[aggregate.groupKeys().length];
    long[] keyOffsets = new long[aggregate.groupKeys().length];
    int[] widths = keyWidths(aggregate, types);
    for (int k = 0; k < aggregate.groupKeys().length; k++) {
      int key = aggregate.groupKeys()[k];
      int reg = b.use(current, key);
      if (widths[k] < 32) {  // packed by its range: the register holds the value minus the range's low end
        long low = aggregate.keyRange(k)[0];
        int lowReg = b.fresh(0);
        b.emit(CONST, lowReg, 0, b.constant(low), null);
        int offset = b.fresh(b.deps(reg));
        b.emit(SUB, offset, reg, lowReg, null);
        reg = offset;
        keyOffsets[k] = low;
      }
      keys[2 * k] = reg;
      keys[2 * k + 1] = widths[k];
      keyNullDeps[k] = b.deps(reg);
    }
    return new GpuProgram(b, calls, callNullDeps, keys, keyNullDeps, keyOffsets);
  }

  /**
   * The packed width of each group key: 64 or 32 bits by its type, unless they add up to more than 64; then each
   * key of known range (of either width: a 64-bit year, a 32-bit dictionary code) takes the bits its range needs. Throws {@link Unsupported} when they still do not fit.
   */
  private static int[] keyWidths(PipelineStage.Aggregate aggregate, List<ExprType> types) {
    int[] keys = aggregate.groupKeys();
    int[] widths = new int[keys.length];
    int bits = 0;
    for (int k = 0; k < keys.length; k++) {
      widths[k] = keyBits(types.get(keys[k]));
      bits += widths[k];
    }
    if (bits <= 64) {
      return widths;
    }
    int packed = 0;
    for (int k = 0; k < keys.length; k++) {
      long[] range = aggregate.keyRange(k);
      if (widths[k] >= 32 && range != null && range[1] - range[0] >= 0 && range[1] - range[0] < 1L << 31) {
        widths[k] = Math.max(1, 64 - Long.numberOfLeadingZeros(range[1] - range[0]));
      }
      packed += widths[k];
    }
    if (packed > 64) {
      throw new Unsupported("group keys " + keyTypes(keys, types) + " need " + bits + " bits (" + packed
          + " packed by the ranges the statistics know); the GPU hash table packs keys into 64");
    }
    return widths;
  }

  /**
   * Compiles a pipeline without an aggregation (Filter and Project stages) whose output columns the
   * columnar_pipeline_rows kernel writes back for the selected rows; throws {@link Unsupported} with the
   * reason when it cannot produce them exactly: TEXT and FLOAT64 columns, and literals of 1- and 4-byte
   * output types outside their width (the kernel narrows those values; a valid plan has none).
   */
  static GpuProgram compileRows(List<ExprType> inputTypes, List<PipelineStage> stages) {
    GpuProgramBuilder b = new GpuProgramBuilder(inputTypes);
    b.narrowLiterals = true;
    List<Integer> current = b.stages(stages);
    List<ExprType> types = typesAfter(inputTypes, stages);
    int[] outputs = new int[types.size()];
    long[] outputNullDeps = new long[types.size()];
    int[][] gathered = new int[types.size()][];
    for (int i = 0; i < outputs.length; i++) {
      ExprType type = types.get(i);
      gathered[i] = b.gatheredBuildColumn(current.get(i));
      if (gathered[i] != null) {  // the build row id comes back; the host gathers the value
        outputs[i] = b.buildRowRegister(gathered[i][0]);
        continue;
      }
      if (type.kind() == ExprType.Kind.TEXT) {
        throw new Unsupported("a TEXT output column ($" + i + "): the GPU produces no strings");
      }
      if (!type.isLong()) {
        throw new Unsupported("a " + type + " output column ($" + i + "): the interpreter computes no " + type);
      }
      outputs[i] = b.use(current, i);
      outputNullDeps[i] = b.deps(outputs[i]);
    }
    GpuProgram program = new GpuProgram(b, new int[0], new long[0], new int[0], new long[0], new long[0], outputs,
        outputNullDeps);
    program.gatheredOutputs = gathered;
    return program;
  }

  /**
   * The types the rows kernel writes for the output columns of {@code types}: an INT32 build row id where the host
   * gathers the column from the build side ({@link #gatheredOutputs}).
   */
  List<ExprType> deviceOutputTypes(List<ExprType> types) {
    List<ExprType> out = new ArrayList<>(types);
    for (int i = 0; i < gatheredOutputs.length; i++) {
      if (gatheredOutputs[i] != null) {
        out.set(i, ExprType.INT32);
      }
    }
    return out;
  }

  private static List<ExprType> typesAfter(List<ExprType> inputTypes, List<PipelineStage> stages) {
    List<ExprType> types = inputTypes;
    for (PipelineStage stage : stages) {
      types = stage.outputTypes(types);
    }
    return types;
  }

  /**
   * The NULL flag bit of each group key in the packed 64-bit key when the columns of {@code nullableColumns}
   * hold NULLs: -1 for a key that cannot be NULL, else a bit above the packed values. Null when the flags do
   * not fit beside the values.
   */
  int[] keyNullBits(long nullableColumns) {
    int[] out = new int[keys.length / 2];
    int next = 0;
    for (int k = 0; k < out.length; k++) {
      next += keys[2 * k + 1];
    }
    for (int k = 0; k < out.length; k++) {
      out[k] = mayBeNull(keyNullDeps[k], nullableColumns) ? next++ : -1;
    }
    return next > 64 ? null : out;
  }

  /** Bits of a key in the packed 64-bit group key: 32 for values that always fit an int, else 64. */
  private static int keyBits(ExprType type) {
    return switch (type.kind()) {
      case INT32, DATE, STRING, BOOLEAN -> 32;
      case INT64, DECIMAL -> 64;
      default -> throw new Unsupported("group key of type " + type);
    };
  }

  private static List<ExprType> keyTypes(int[] keys, List<ExprType> types) {
    List<ExprType> out = new ArrayList<>();
    for (int k : keys) {
      out.add(types.get(k));
    }
    return out;
  }
}
