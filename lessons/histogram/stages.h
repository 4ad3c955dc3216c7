// Histogram: the three stages of the lesson, in order, for the lesson's
// program (driver.cu) and its graded tests (grade.cu). Each row is
//
//   STAGE(number, what the program calls it, the kernel, its launcher)
//
// and each file makes its own table from the rows, with its own STAGE:
// driver.cu calls the launchers, grade.cu calls them through
// CUDALAB_SUBMISSION (in the judge, in the student's program).
#pragma once

#define HISTOGRAM_STAGES(STAGE)                                             \
  STAGE(1, "global atomics", histogram_global, launch_histogram_global)     \
  STAGE(2, "shared-memory bins", histogram_shared, launch_histogram_shared) \
  STAGE(3, "wide loads", histogram_wide, launch_histogram_wide)
