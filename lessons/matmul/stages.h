// Matrix multiply: the four stages of the lesson, in order, for the lesson's
// program (driver.cu) and its graded tests (grade.cu). Each row is
//
//   STAGE(number, what the program calls it, the kernel, its launcher)
//
// and each file makes its own table from the rows, with its own STAGE:
// driver.cu calls the launchers, grade.cu calls them through
// CUDALAB_SUBMISSION (in the judge, in the student's program).
#pragma once

#define MATMUL_STAGES(STAGE)                                         \
  STAGE(1, "naive", matmul_naive, launch_matmul_naive)               \
  STAGE(2, "coalesced", matmul_coalesced, launch_matmul_coalesced)   \
  STAGE(3, "shared-memory tiled", matmul_tiled, launch_matmul_tiled) \
  STAGE(4, "register-tiled", matmul_register_tiled, launch_matmul_register_tiled)
