package org.spillway.adapter;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/**
 * What the adapter's GPU tests over TPC-H share: SF 0.01 generated once per test class into a temporary directory of
 * its own (the class skipped without a CUDA device, failed if gpu.required says there must be one), and the
 * directory's catalog closed after the class.
 */
abstract class GpuTpchData {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    GpuTests.requireDevice();
    TpchGenerator.generate(dir, 0.01, 2, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }
}
