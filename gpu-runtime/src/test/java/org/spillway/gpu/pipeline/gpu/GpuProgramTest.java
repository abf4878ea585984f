package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the GPU backend accepts and why it refuses the rest (no GPU needed: this is the planner's view). */
class GpuProgramTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.decimal(2), ExprType.FLOAT64,
      ExprType.STRING, ExprType.BOOLEAN, ExprType.TEXT, ExprType.DATE);
  private static final AggCall COUNT = new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64);

  @Test void q6LikePipelineCompilesToOneProgram() {
    Expr shipped = new Expr.InRanges(new Expr.Column(6, ExprType.DATE), new long[] {8766}, new long[] {9130}, null);
    Expr cheap = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(1, ExprType.decimal(2)),
        new Expr.Literal(24L, ExprType.decimal(2)));
    Expr revenue = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(1, ExprType.decimal(2)),
        new Expr.Column(1, ExprType.decimal(2)), ExprType.decimal(4));
    List<PipelineStage> stages = List.of(new PipelineStage.Filter(new Expr.Logical(true, List.of(shipped, cheap))),
        new PipelineStage.Project(List.of(revenue)),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.decimal(4)))));
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(TYPES, stages);
    assertEquals("supported", pipeline.unsupportedReason().orElse("supported"));
    GpuProgram program = GpuProgram.compile(TYPES, stages.subList(0, 2), (PipelineStage.Aggregate) stages.get(2));
    assertEquals(List.of(6, 1), Arrays.stream(program.columns).boxed().toList(), "columns in first-use order");
    assertEquals(List.of(false, true), List.of(program.wide[0], program.wide[1]));
    assertEquals(program.code.length, program.length() * 4);
    assertEquals(program.origins.length, program.length());
  }

  /**
   * A probe compiles to a PROBE of its join and a LOAD_BUILD of each build column read (once per slot); what the
   * GPU probe cannot pair exactly stays on the CPU, saying why.
   */
  @Test void joinProbesCompileOrSayWhyNot() {
    List<ExprType> build = List.of(ExprType.INT64, ExprType.decimal(2), ExprType.TEXT, ExprType.INT64);
    JoinProbe inner = new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build,
        false, null);
    PipelineStage.Aggregate sum = new PipelineStage.Aggregate(new int[] {3 + TYPES.size()},
        List.of(new AggCall(AggCall.Kind.SUM, 1 + TYPES.size(), ExprType.decimal(2))));
    List<PipelineStage> stages = List.of(new PipelineStage.HashJoinProbe(inner), sum);
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(TYPES, stages);
    assertEquals("supported", pipeline.unsupportedReason().orElse("supported"));
    GpuProgram program = GpuProgram.compile(TYPES, stages.subList(0, 1), sum);
    assertEquals(List.of(GpuProgram.JOIN_INNER), Arrays.stream(program.joinKinds).boxed().toList());
    assertEquals(List.of(1, 3), Arrays.stream(program.slotColumns).boxed().toList(), "build columns in first-use order");
    assertEquals(1, count(program, GpuProgram.PROBE));
    assertEquals(2, count(program, GpuProgram.LOAD_BUILD));
    assertEquals("{1, 3}", pipeline.buildColumnsRead(0).toString());

    assertReason("TEXT", List.of(new PipelineStage.HashJoinProbe(inner), new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.COUNT, 2 + TYPES.size(), ExprType.INT64)))));
    List<ExprType> dates = List.of(ExprType.INT32, ExprType.DATE, ExprType.INT64);
    // 64-bit key types pack too: their values must fit 32 bits at run time (GpuJoinTables.packed)
    List<PipelineStage> wide = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.SEMI,
        new int[] {0, 0}, List.of(ExprType.INT64, ExprType.INT64), new int[] {0, 3}, build, false, null)));
    assertEquals(1, count(GpuProgram.compile(TYPES, wide, aggregate(new int[0])), GpuProgram.PACK));
    List<PipelineStage> mixed = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.INNER,
        new int[] {6, 0}, List.of(ExprType.DATE, ExprType.INT64), new int[] {1, 2}, dates, false, null)));
    assertEquals(1, count(GpuProgram.compile(TYPES, mixed, aggregate(new int[0])), GpuProgram.PACK));
    List<PipelineStage> packed = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.SEMI,
        new int[] {6, 6}, List.of(ExprType.DATE, ExprType.DATE), new int[] {1, 1}, dates, false, null)));
    GpuProgram two = GpuProgram.compile(TYPES, packed, aggregate(new int[0]));
    assertEquals(1, count(two, GpuProgram.PACK), "two 32-bit keys packed into one");
    assertEquals(List.of(1, 1), Arrays.stream(two.joinBuildKeys[0]).boxed().toList());
    assertReason("join keys of STRING and STRING", List.of(new PipelineStage.HashJoinProbe(new JoinProbe(
        JoinProbe.Kind.SEMI, new int[] {3}, List.of(ExprType.STRING), new int[] {0},
        List.of(ExprType.STRING), false, null)), aggregate(new int[0])));
    List<PipelineStage> marking = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.MARK_BUILD,
        new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build, true, null)));
    GpuProgram marks = GpuProgram.compileRows(TYPES, marking);
    assertEquals(List.of(GpuProgram.JOIN_MARK), Arrays.stream(marks.joinKinds).boxed().toList());
    assertEquals(0, marks.outputs.length, "a marking probe passes no row on");
    // a mark per join, each under its condition over the joined row (build side first): one loop over the key's rows
    GpuProgram conditioned = GpuProgram.compileRows(TYPES, List.of(new PipelineStage.HashJoinProbe(JoinProbe.marking(
        new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build, java.util.Arrays.asList(
            new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(3, ExprType.INT64),
                new Expr.Column(build.size(), ExprType.INT64)), null)))));
    assertEquals(List.of(2), Arrays.stream(conditioned.joinMarks).boxed().toList());
    assertEquals(1, count(conditioned, GpuProgram.PROBE_ALL));
    assertEquals(1, count(conditioned, GpuProgram.PROBE_NEXT));
    assertEquals(2, count(conditioned, GpuProgram.MARK));
    assertEquals(1, count(conditioned, GpuProgram.LOAD_BUILD), "the condition reads a build column");
    Expr residual = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT64),
        new Expr.Column(TYPES.size() + 3, ExprType.INT64));
    assertReason("beyond key equality", List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.LEFT,
        new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build, false, residual)), aggregate(new int[0])));
  }

  private static int indexOf(GpuProgram program, int op) {
    for (int pc = 0; pc < program.length(); pc++) {
      if (program.code[4 * pc] == op) {
        return pc;
      }
    }
    return -1;
  }

  private static int count(GpuProgram program, int op) {
    int n = 0;
    for (int pc = 0; pc < program.length(); pc++) {
      n += program.code[4 * pc] == op ? 1 : 0;
    }
    return n;
  }

  @Test void refusesWhatTheKernelCannotDoExactly() {
    assertReason("input column $2 of type FLOAT64", List.of(new PipelineStage.Filter(new Expr.Compare(
        Expr.CompareOp.LT, new Expr.Column(2, ExprType.FLOAT64), new Expr.Literal(1.0, ExprType.FLOAT64))),
        aggregate(new int[0])));
    assertReason("input column $4 of type BOOLEAN", List.of(new PipelineStage.Filter(
        new Expr.Column(4, ExprType.BOOLEAN)), aggregate(new int[0])));
    assertReason("need 128 bits", List.of(aggregate(new int[] {0, 1})));
    assertReason("MIN of FLOAT64", List.of(new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.MIN, 2, ExprType.FLOAT64)))));
    assertEquals("supported", new GpuColumnarPipeline(TYPES, List.of(aggregate(new int[] {3, 6})))
        .unsupportedReason().orElse("supported"), "two 32-bit keys pack into 64 bits");
  }

  /**
   * FLOAT64 values computed inside a program (a decimal cast to DOUBLE compared with a literal times a build column of
   * doubles, Q17's residual) compile to TO_DOUBLE, FMUL and FCMP; an aggregate or group key of them stays on the CPU.
   */
  @Test void doubleComparisonsCompileButDoubleAggregatesDoNot() {
    List<ExprType> build = List.of(ExprType.INT64, ExprType.FLOAT64);
    int average = TYPES.size() + 1;
    Expr quantity = new Expr.Cast(new Expr.Column(1, ExprType.decimal(2)), ExprType.FLOAT64);
    Expr fifth = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Literal(0.2, ExprType.FLOAT64),
        new Expr.Column(average, ExprType.FLOAT64), ExprType.FLOAT64);
    List<PipelineStage> probe = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(JoinProbe.Kind.INNER,
        new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build, false, null)),
        new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT, quantity, fifth)));
    PipelineStage.Aggregate sum = new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.decimal(2))));
    GpuProgram program = GpuProgram.compile(TYPES, probe, sum);
    assertEquals(1, count(program, GpuProgram.TO_DOUBLE));
    assertEquals(1, count(program, GpuProgram.FADD + Expr.ArithOp.TIMES.ordinal()));
    assertEquals(1, count(program, GpuProgram.FCMP_EQ + Expr.CompareOp.LT.ordinal()));
    assertEquals(0, count(program, GpuProgram.CMP_EQ + Expr.CompareOp.LT.ordinal()));
    assertEquals(List.of(1), Arrays.stream(program.slotColumns).boxed().toList(), "the average, a build column");
    List<PipelineStage> averaged = List.of(probe.get(0), new PipelineStage.Project(List.of(fifth)));
    assertReason("MIN of FLOAT64", List.of(averaged.get(0), averaged.get(1), new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.MIN, 0, ExprType.FLOAT64)))));
    assertReason("group key of type FLOAT64", List.of(averaged.get(0), averaged.get(1),
        new PipelineStage.Aggregate(new int[] {0}, List.of(COUNT))));
  }

  /** Decimal quotients, rounding casts and precision checks stay on the CPU backend, in pipelines of both kinds. */
  @Test void refusesDecimalDivisionAndRoundingOrCheckedCasts() {
    Expr price = new Expr.Column(1, ExprType.decimal(2));
    Expr quotient = new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, price, new Expr.Column(0, ExprType.INT64));
    Expr avg = new Expr.Cast(quotient, ExprType.decimal(2), 15);
    Expr rounded = new Expr.Cast(price, ExprType.decimal(1));
    Expr checked = new Expr.Cast(price, ExprType.decimal(2), 4);
    AggCall sum = new AggCall(AggCall.Kind.SUM, 0, ExprType.decimal(2));
    for (Expr e : List.of(avg, rounded, checked)) {
      String expected = e == avg ? "BigDecimal arithmetic" : "neither rounds decimals nor checks their precision";
      assertReason(expected, List.of(new PipelineStage.Project(List.of(e)),
          new PipelineStage.Aggregate(new int[0], List.of(e == rounded ? new AggCall(AggCall.Kind.SUM, 0,
              ExprType.decimal(1)) : sum))));
      assertReason(expected, List.of(new PipelineStage.Project(List.of(e))));
    }
    assertReason("BigDecimal arithmetic", List.of(new PipelineStage.Project(List.of(quotient))));
  }

  /**
   * TPC-H Q13's filter, NOT LIKE(o_comment, '%special%requests%') before a grouped COUNT, compiles to one LIKE_TEXT
   * of a plain-text slot (never loaded as a value, not wide) whose constants are the pattern's pieces; the result's
   * NULL follows the text's.
   */
  @Test void likeOverPlainTextCompilesToLikeText() {
    Expr text = new Expr.Column(5, ExprType.TEXT);
    List<PipelineStage> stages = List.of(new PipelineStage.Filter(new Expr.Not(Expr.Like.of(text,
        "%special%requests%", null))), new PipelineStage.Aggregate(new int[] {3},
        List.of(new AggCall(AggCall.Kind.COUNT, 0, ExprType.INT64))));
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(TYPES, stages);
    assertEquals("supported", pipeline.unsupportedReason().orElse("supported"));
    assertEquals("columnar_pipeline_grouped", pipeline.kernelName().orElseThrow(), "not the selection kernel");
    GpuProgram program = GpuProgram.compile(TYPES, stages.subList(0, 1), (PipelineStage.Aggregate) stages.get(1));
    assertEquals(List.of(5, 0, 3), Arrays.stream(program.columns).boxed().toList(), "columns in first-use order");
    assertEquals(List.of(true, false, false), List.of(program.text[0], program.text[1], program.text[2]));
    assertEquals(List.of(false, true, false), List.of(program.wide[0], program.wide[1], program.wide[2]));
    assertTrue(program.readsText());
    assertEquals(1, count(program, GpuProgram.LIKE_TEXT));
    int at = indexOf(program, GpuProgram.LIKE_TEXT);
    assertEquals(0, program.code[4 * at + 2], "the text slot");
    for (int i = 0; i < program.length(); i++) {
      assertTrue(program.code[4 * i] != GpuProgram.LOAD || program.code[4 * i + 2] != 0, "text is never loaded");
    }
    long[] pattern = Arrays.copyOfRange(program.constants, program.code[4 * at + 3], program.constants.length);
    assertEquals(List.of(4L, 0L, 7L, 8L, 0L), Arrays.stream(pattern, 0, 5).boxed().toList(), "pieces and lengths");
    assertEquals(1L << 1, program.callNullDeps[0], "COUNT($0) depends on $0's NULLs, not the text's");
    GpuProgram rows = GpuProgram.compileRows(TYPES, List.of(new PipelineStage.Filter(Expr.Like.of(text, "a%", null)),
        new PipelineStage.Project(List.of(new Expr.Column(0, ExprType.INT64)))));
    assertTrue(rows.readsText(), "rows pipelines filter by LIKE too");
  }

  /**
   * SUBSTRING(text FROM 1 FOR n) = 'literal' of n ASCII characters is the LIKE 'literal%' it equals (Q22's country
   * codes, either side of the comparison); other substrings and literals stay on the CPU (above).
   */
  @Test void aSubstringPrefixEqualityIsALikePrefix() {
    Expr text = new Expr.Column(5, ExprType.TEXT);
    Expr.Literal code = new Expr.Literal("13", ExprType.TEXT);
    Expr.Substring prefix = new Expr.Substring(text, 1, 2);
    for (Expr equality : List.of(new Expr.Compare(Expr.CompareOp.EQ, prefix, code),
        new Expr.Compare(Expr.CompareOp.EQ, code, prefix))) {
      Expr.Like like = GpuProgramBuilder.prefixLike(equality);
      assertEquals("LIKE($5, '13%')", String.valueOf(like));
      assertEquals("supported", new GpuColumnarPipeline(TYPES, List.of(new PipelineStage.Filter(new Expr.Logical(false,
          List.of(equality, new Expr.Compare(Expr.CompareOp.EQ, prefix, new Expr.Literal("31", ExprType.TEXT))))),
          aggregate(new int[0]))).unsupportedReason().orElse("supported"));
    }
    assertEquals(null, GpuProgramBuilder.prefixLike(new Expr.Compare(Expr.CompareOp.NE, prefix, code)));
  }

  /**
   * What the GPU's LIKE does not match stays on the CPU backend with the reason: '_' and escapes, LIKE of anything
   * but a scanned column (SUBSTRING, a build side's text), and plain text read as a value.
   */
  @Test void refusesFunctionsOfPlainTextBeyondLike() {
    Expr text = new Expr.Column(5, ExprType.TEXT);
    assertReason("a pattern with '_' or an escape", List.of(new PipelineStage.Filter(Expr.Like.of(text, "%a_b%", null)),
        aggregate(new int[0])));
    assertReason("a pattern with '_' or an escape", List.of(new PipelineStage.Filter(Expr.Like.of(text, "%a!%b%",
        "!")), aggregate(new int[0])));
    assertEquals("supported", new GpuColumnarPipeline(TYPES, List.of(new PipelineStage.Filter(Expr.Like.of(text,
        "%a%b%", "!")), aggregate(new int[0]))).unsupportedReason().orElse("supported"), "an escape not used");
    for (Expr other : List.of(new Expr.Substring(text, 1, 3), new Expr.Substring(text, 2, 2), text)) {
      assertReason("TEXT values", List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.EQ, other,
          new Expr.Literal("13", ExprType.TEXT))), aggregate(new int[0])));
    }
    for (String literal : List.of("é3", "1%", "1_", "1\0")) {
      assertReason("TEXT values", List.of(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.EQ,
          new Expr.Substring(text, 1, 2), new Expr.Literal(literal, ExprType.TEXT))), aggregate(new int[0])));
    }
    assertReason("anything but a scanned text column", List.of(new PipelineStage.Filter(Expr.Like.of(
        new Expr.Substring(text, 1, 2), "1%", null)), aggregate(new int[0])));
    List<ExprType> build = List.of(ExprType.INT64, ExprType.TEXT);
    JoinProbe inner = new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(ExprType.INT64), new int[] {0}, build,
        false, null);
    assertReason("anything but a scanned text column", List.of(new PipelineStage.HashJoinProbe(inner),
        new PipelineStage.Filter(Expr.Like.of(new Expr.Column(TYPES.size() + 1, ExprType.TEXT), "%x%", null)),
        aggregate(new int[0])));
    PipelineStage like = new PipelineStage.Filter(Expr.Like.of(text, "%x%", null));
    assertReason("group key of type TEXT", List.of(like, new PipelineStage.Aggregate(new int[] {5},
        List.of(COUNT))));
    assertEquals("supported", new GpuColumnarPipeline(TYPES, List.of(like, new PipelineStage.Filter(
        new Expr.IsNull(new Expr.Substring(text, 1, 2), true)), aggregate(new int[0]))).unsupportedReason()
        .orElse("supported"), "IS NULL of text, as of LIKE '%'");
    assertReason("TEXT values", List.of(like, new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT, text,
        new Expr.Literal("x", ExprType.TEXT))), aggregate(new int[0])));
    assertReason("a TEXT output column ($0)", List.of(like, new PipelineStage.Project(List.of(text))));
  }

  /**
   * Group keys whose 32-bit values need more than 64 bits together pack by the ranges the statistics give: each takes
   * the bits of its range (the value minus the range's low end), and the NULL flags still go above them.
   */
  @Test void keysOfKnownRangesPackIntoFewerBits() {
    List<ExprType> types = List.of(ExprType.INT32, ExprType.DATE, ExprType.INT32, ExprType.STRING);
    PipelineStage.Aggregate threeKeys = new PipelineStage.Aggregate(new int[] {0, 1, 2, 3}, List.of(COUNT));
    assertTrue(new GpuColumnarPipeline(types, List.of(threeKeys)).unsupportedReason().orElse("")
        .contains("need 128 bits"), "no ranges: 4 x 32 bits");
    long[][] ranges = {{1, 60_000_000}, {8035, 10591}, {0, 0}, {0, 149}};
    GpuProgram packed = GpuProgram.compile(types, List.of(), threeKeys.withKeyRanges(ranges));
    assertEquals(List.of(26, 12, 1, 8), box(new int[] {packed.keys[1], packed.keys[3], packed.keys[5], packed.keys[7]}));
    assertEquals(List.of(1L, 8035L, 0L, 0L), Arrays.stream(packed.keyOffsets).boxed().toList());
    assertEquals(List.of(47, -1, -1, 48), box(packed.keyNullBits(0b1001)), "flags above the 47 packed bits");
    long[][] oneUnknown = {{1, 60_000_000}, null, {0, 0}, {0, 149}};
    assertTrue(new GpuColumnarPipeline(types, List.of(threeKeys.withKeyRanges(oneUnknown))).unsupportedReason()
        .orElse("").contains("(67 packed by the ranges"), "an unknown range keeps 32 bits: 26 + 32 + 1 + 8");
    long[][] wide = {{Integer.MIN_VALUE, Integer.MAX_VALUE}, {0, 1 << 20}, {0, 0}, {0, 149}};
    assertEquals("supported", new GpuColumnarPipeline(types, List.of(threeKeys.withKeyRanges(wide)))
        .unsupportedReason().orElse("supported"), "a range as wide as the type keeps 32 bits; 32 + 21 + 1 + 8 fit");
  }

  /**
   * A 64-bit key of known range packs too: Q9 groups by a nation's dictionary code and the EXTRACT(YEAR) of a date, a
   * BIGINT whose range the date's statistics give; without that range, 32 + 64 bits do not fit.
   */
  @Test void aBigintKeyOfKnownRangePacks() {
    List<ExprType> types = List.of(ExprType.STRING, ExprType.INT64);
    PipelineStage.Aggregate byNationAndYear = new PipelineStage.Aggregate(new int[] {0, 1}, List.of(COUNT));
    assertTrue(new GpuColumnarPipeline(types, List.of(byNationAndYear)).unsupportedReason().orElse("")
        .contains("need 96 bits"), "no ranges: 32 + 64 bits");
    long[][] ranges = {{0, 24}, {1992, 1998}};
    GpuProgram packed = GpuProgram.compile(types, List.of(), byNationAndYear.withKeyRanges(ranges));
    assertEquals(List.of(5, 3), box(new int[] {packed.keys[1], packed.keys[3]}));
    assertEquals(List.of(0L, 1992L), Arrays.stream(packed.keyOffsets).boxed().toList());
    long[][] wideYear = {{0, 24}, {Long.MIN_VALUE / 2, Long.MAX_VALUE / 2}};
    assertTrue(new GpuColumnarPipeline(types, List.of(byNationAndYear.withKeyRanges(wideYear))).unsupportedReason()
        .isPresent(), "a range beyond 31 bits keeps 64");
  }

  /** NULL flags of group keys go above the packed values, only for keys that can be NULL; 64 bits are the limit. */
  @Test void nullableKeysGetFlagBitsWhereTheyFit() {
    List<ExprType> types = List.of(ExprType.INT32, ExprType.DATE, ExprType.INT64);
    Expr sum = new Expr.Arith(Expr.ArithOp.PLUS, new Expr.Column(0, ExprType.INT32), new Expr.Column(0, ExprType.INT32),
        ExprType.INT32);
    PipelineStage.Aggregate byTwo = new PipelineStage.Aggregate(new int[] {0, 1}, List.of(COUNT));
    GpuProgram plain = GpuProgram.compile(types, List.of(new PipelineStage.Project(List.of(sum,
        new Expr.Column(1, ExprType.DATE), new Expr.IsNull(new Expr.Column(2, ExprType.INT64), false)))), byTwo);
    // slots: $0 -> 0, $1 -> 1, $2 -> 2
    assertEquals(List.of(-1, -1), box(plain.keyNullBits(0)), "no column holds NULLs");
    assertEquals(null, plain.keyNullBits(0b01), "two 32-bit keys fill all 64 bits: no room for a NULL flag");
    GpuProgram one = GpuProgram.compile(types, List.of(new PipelineStage.Project(List.of(sum,
        new Expr.IsNull(new Expr.Column(2, ExprType.INT64), true)))),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.BOOLEAN))));
    assertEquals(List.of(32), box(one.keyNullBits(0b001)), "the flag of the one 32-bit key is bit 32");
    assertEquals(List.of(-1), box(one.keyNullBits(0b100)), "IS NOT NULL is never NULL");
    assertTrue(GpuProgram.mayBeNull(one.callNullDeps[0], 0) == false);
    GpuProgram literal = GpuProgram.compile(types, List.of(new PipelineStage.Project(List.of(new Expr.Case(
        List.of(new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(2, ExprType.INT64), new Expr.Literal(0L,
            ExprType.INT64))), List.of(new Expr.Literal(null, ExprType.INT64)), new Expr.Column(2, ExprType.INT64))))),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.MIN, 0, ExprType.INT64))));
    assertTrue(GpuProgram.mayBeNull(literal.callNullDeps[0], 0), "a NULL THEN makes the CASE nullable");
  }

  /**
   * Pipelines without an aggregation run on the GPU when every output column is an integer kind the kernel
   * writes (1, 4 or 8 bytes): TEXT and FLOAT64 outputs, BOOLEAN input columns and literals wider than their
   * type stay on the CPU, with the reason.
   */
  @Test void rowsPipelinesCompileUnlessAnOutputCannotComeFromTheGpu() {
    Expr isOne = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(3, ExprType.STRING),
        new Expr.Literal(1L, ExprType.STRING));
    PipelineStage filter = new PipelineStage.Filter(isOne);
    assertReason("a FLOAT64 output column ($2)", List.of(filter));
    assertReason("a TEXT output column ($0): the GPU produces no strings", List.of(filter,
        new PipelineStage.Project(List.of(new Expr.Column(5, ExprType.TEXT), new Expr.Column(0, ExprType.INT64)))));
    assertReason("a FLOAT64 output column ($1)", List.of(new PipelineStage.Project(List.of(
        new Expr.Column(0, ExprType.INT64),
        new Expr.Cast(new Expr.Column(1, ExprType.decimal(2)), ExprType.FLOAT64)))));
    assertReason("input column $4 of type BOOLEAN", List.of(filter, new PipelineStage.Project(List.of(
        new Expr.Column(4, ExprType.BOOLEAN)))));
    assertReason("literal 4294967296 of type INT32", List.of(new PipelineStage.Project(List.of(
        new Expr.Column(0, ExprType.INT64), new Expr.Literal(1L << 32, ExprType.INT32)))));
    assertReason("literal 2 of type BOOLEAN", List.of(new PipelineStage.Project(List.of(
        new Expr.Column(0, ExprType.INT64), new Expr.Literal(2L, ExprType.BOOLEAN)))));
    assertReason("reads no column", List.of(new PipelineStage.Project(List.of(new Expr.Literal(7L, ExprType.INT64)))));
    List<PipelineStage> stages = List.of(filter, new PipelineStage.Project(List.of(new Expr.Column(6, ExprType.DATE),
        new Expr.Column(1, ExprType.decimal(2)), isOne, new Expr.Literal(null, ExprType.INT32),
        new Expr.Column(3, ExprType.STRING))));
    GpuColumnarPipeline rows = new GpuColumnarPipeline(TYPES, stages);
    assertEquals("supported", rows.unsupportedReason().orElse("supported"));
    assertEquals("columnar_pipeline_rows", rows.kernelName().orElseThrow());
    GpuProgram program = GpuProgram.compileRows(TYPES, stages);
    assertEquals(5, program.outputs.length);
    assertEquals(List.of(3, 6, 1), Arrays.stream(program.columns).boxed().toList(), "filter column first");
    assertEquals(0, program.calls.length);
    assertTrue(GpuProgram.mayBeNull(program.outputNullDeps[3], 0), "a NULL literal is always nullable");
    assertTrue(!GpuProgram.mayBeNull(program.outputNullDeps[0], 0b001), "$6 is slot 1, not slot 0");
    assertTrue(GpuProgram.mayBeNull(program.outputNullDeps[0], 0b010));
    assertTrue(GpuProgram.mayBeNull(program.outputNullDeps[2], 0b001), "the comparison of a nullable column");
  }

  /**
   * A rows pipeline may return an INNER probe's TEXT build column: the kernel writes the build row id (INT32) and
   * the host gathers the text; a LEFT probe's (whose row may be missing) stays on the CPU.
   */
  @Test void textBuildColumnsOfInnerProbesComeBackAsRowIds() {
    List<ExprType> build = List.of(ExprType.INT64, ExprType.TEXT);
    int name = TYPES.size() + 1;
    for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.INNER, JoinProbe.Kind.LEFT)) {
      List<PipelineStage> stages = List.of(new PipelineStage.HashJoinProbe(new JoinProbe(kind, new int[] {0},
          List.of(ExprType.INT64), new int[] {0}, build, false, null)),
          new PipelineStage.Project(List.of(new Expr.Column(name, ExprType.TEXT), new Expr.Column(0, ExprType.INT64))));
      if (kind == JoinProbe.Kind.LEFT) {
        assertReason("a TEXT output column ($0)", stages);
        continue;
      }
      GpuProgram program = GpuProgram.compileRows(TYPES, stages);
      assertEquals(List.of(0, 1), Arrays.stream(program.gatheredOutputs[0]).boxed().toList(), "probe 0, column 1");
      assertEquals(null, program.gatheredOutputs[1]);
      assertEquals(0, count(program, GpuProgram.LOAD_BUILD), "the text is never loaded on the GPU");
      assertEquals(List.of(ExprType.INT32, ExprType.INT64),
          program.deviceOutputTypes(List.of(ExprType.TEXT, ExprType.INT64)));
    }
  }

  private static List<Integer> box(int[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  /** count(*) reads no column: there is nothing to stream, so it stays on the CPU (it failed on the GPU). */
  @Test void refusesAPipelineThatReadsNoColumn() {
    for (List<ExprType> inputs : List.of(List.<ExprType>of(), TYPES)) {
      String reason = new GpuColumnarPipeline(inputs, List.of(aggregate(new int[0])))
          .unsupportedReason().orElse("supported");
      assertTrue(reason.contains("reads no column"), reason);
    }
  }

  private static PipelineStage.Aggregate aggregate(int[] keys) {
    return new PipelineStage.Aggregate(keys, List.of(COUNT));
  }

  private static void assertReason(String expected, List<PipelineStage> stages) {
    String reason = new GpuColumnarPipeline(TYPES, stages).unsupportedReason().orElse("supported");
    assertTrue(reason.contains(expected), "expected '" + expected + "' in: " + reason);
  }
}
