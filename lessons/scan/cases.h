// Scan: what the graded tests of grade.cu and hidden.cu share. A case runs
// one stage of the student's file (or one launch of stage 3) on ints drawn
// from `seed` and fails `t` with what is wrong, in the student's words.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"

// The stages, as the tests name them.
enum class Stage { kKoggeStone = 1, kBrentKung = 2, kMultiBlock = 3, kSinglePass = 4 };

// The whole scan of n random ints with `stage`, compared with the CPU.
void scan_case(cudalab::grading::TestContext& t, Stage stage, int n, uint64_t seed);

// Stage 3's first launch alone: the tiles' sums of n random ints.
void reduce_tiles_case(cudalab::grading::TestContext& t, int n, uint64_t seed);

// Stage 3's second launch alone: the scan, in place, of `tiles` random sums.
void scan_tile_sums_case(cudalab::grading::TestContext& t, int tiles, uint64_t seed);
