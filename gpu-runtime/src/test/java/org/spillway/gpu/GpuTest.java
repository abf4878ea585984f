package org.spillway.gpu;

import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test (class or method) that needs a CUDA device: tagged "gpu", skipped where there is none
 * (CI), failed where -Dgpu.required=true says there must be one, and checked for leaked GPU memory.
 */
@Target({TYPE, METHOD})
@Retention(RUNTIME)
@Tag("gpu")
@ExtendWith({CudaAvailable.class, AllocatorBalance.class})
public @interface GpuTest {}
