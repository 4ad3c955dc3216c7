// Matrix transpose: the four stages of the lesson, in order, for the
// lesson's program (driver.cu) and its graded tests (grade.cu). Each row is
//
//   STAGE(number, what the program calls it, the kernel, its launcher)
//
// and each file makes its own table from the rows, with its own STAGE.
#pragma once

#define TRANSPOSE_STAGES(STAGE)                                           \
  STAGE(1, "naive", transpose_naive, launch_transpose_naive)              \
  STAGE(2, "shared-memory tile", transpose_tiled, launch_transpose_tiled) \
  STAGE(3, "padded tile", transpose_padded, launch_transpose_padded)      \
  STAGE(4, "4 elements per thread", transpose_coarsened, launch_transpose_coarsened)
