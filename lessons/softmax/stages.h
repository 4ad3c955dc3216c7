// Softmax: the four stages of the lesson, in order, for the lesson's program
// (driver.cu) and its graded tests (grade.cu). Each row is
//
//   STAGE(number, what the program calls it, the kernel, its launcher)
//
// and each file makes its own table from the rows, with its own STAGE.
#pragma once

#define SOFTMAX_STAGES(STAGE)                                                         \
  STAGE(1, "a thread per row", softmax_thread_per_row, launch_softmax_thread_per_row) \
  STAGE(2, "a block per row", softmax_block_per_row, launch_softmax_block_per_row)    \
  STAGE(3, "warp shuffles", softmax_warp_shuffle, launch_softmax_warp_shuffle)        \
  STAGE(4, "online, one pass", softmax_online, launch_softmax_online)
