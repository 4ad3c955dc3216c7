// The channel between a lesson's judge and a submission's process: the
// judge's side (judge_side.cpp) starts the program and calls the student's
// functions in it; the submission's side (submission_side.cpp, answer_calls)
// answers; wire.h is what goes between them. Not a public header: the
// graders reach it through cudalab/framework/submission.h and cudalab/framework/grading.h.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalab::grading {

struct Limits {
  double seconds = 60;                    // waiting on the submission, in all
  size_t output_bytes = size_t(4) << 20;  // what it may print
  bool signal_as_exit_code = true;        // a sandbox reports signal N as exit code 128 + N
  // After its last answer, how long the program may take to end (writing
  // its reports); below 0: the time left.
  double exit_seconds = -1;
};

// The submission's process ended the test early: timed out, crashed,
// exited, printed too much, broke the protocol or ran out of memory.
class SubmissionLost : public std::runtime_error {
 public:
  SubmissionLost(std::string kind, const std::string& why);
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// Judge: starts the submission's program (argv), with which the test's
// calls are then made; finish asks it to end and waits for it.
void start_submission(const std::vector<std::string>& argv, const Limits& limits);
void finish_submission();
bool judging();
// What the submission printed (its first and last lines), and the seconds
// spent waiting on it.
std::string submission_output();
double submission_seconds();
// False when the program answered but did not end in its time and was killed.
bool submission_exited();
// Seconds the judge waited for it to end after its last answer.
double submission_exit_seconds();
// The student's functions the graded tests call (CUDALAB_SUBMISSION).
const std::vector<std::string>& called_functions();

// Judge: writer tracking, the last call's CUDA error and who wrote an
// address, all asked of the submission's process.
bool remote_track_writers();
cudaError_t remote_last_error();
std::string remote_writer(const void* device_address);
// The number the submission's trace gives the allocation that holds
// `device_address` (a judge's buffer of the last call), and the address's
// offset in it; 0 when none does. What it says is only drawn, never graded.
uint32_t remote_allocation_id(const void* device_address, uint64_t* offset);

// Judge, with --compared: every compare() of the test is kept (the buffer,
// its allocation in the submission's trace, the wrong elements with their
// values and the values expected), for cudalab-viz's graded-test view.
void keep_comparisons();
bool keeping_comparisons();
void note_comparison(nlohmann::json comparison);
// The comparisons kept so far (an array), emptied.
nlohmann::json take_comparisons();

// The submission's program: answers the judge's calls until told to stop.
int answer_calls();

}  // namespace cudalab::grading
