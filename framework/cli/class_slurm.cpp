// cudalab grade --slurm: the class as a job array, each task grading a
// share of the submissions with this same command, and a last job that
// gathers the gradebook.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "class_grading.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"

namespace cudalab::cli {

int submit_to_slurm(const GradeClassOptions& o, const fs::path& out, size_t count) {
  const fs::path dir = out / "slurm";
  fs::create_directories(dir);
  const size_t tasks = std::max<size_t>(1, std::min(count, size_t(o.slurm_tasks)));
  // Every task runs this same command on its share; the last job gathers.
  std::ostringstream base;
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  base << support::shell_quote(n > 0 ? std::string(self, size_t(n)) : std::string("cudalab"))
       << " grade " << support::shell_quote(o.lesson);
  for (const auto& in : o.inputs) base << " " << support::shell_quote(fs::absolute(in).string());
  base << " -o " << support::shell_quote(fs::absolute(out).string()) << " -j 1 --timeout "
       << o.timeout_s;
  if (o.unconfined) base << " --unconfined";
  if (o.gpu) base << " --gpu";
  if (o.pictures) base << " --pictures";
  if (o.no_rubrics) base << " --no-rubrics";
  const std::string array_script = (dir / "grade-chunk.sh").string();
  std::ofstream(array_script) << "#!/bin/sh\n# A task of the grading job array: its share of "
                                 "the class.\nexec "
                              << base.str() << " --chunk \"$SLURM_ARRAY_TASK_ID/" << tasks
                              << "\"\n";
  const std::string gather_script = (dir / "gather.sh").string();
  std::ofstream(gather_script) << "#!/bin/sh\n# After every task: the gradebook from their "
                                  "records (nothing is graded twice).\nexec "
                               << base.str() << " --gather\n";
  fs::permissions(array_script, fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(gather_script, fs::perms::owner_all, fs::perm_options::add);
  // The instructor's own sbatch options, a word each.
  std::vector<std::string> extra;
  std::istringstream words(o.slurm_args);
  for (std::string w; words >> w;) extra.push_back(w);
  auto sbatch = [&](std::vector<std::string> args, const std::string& script) {
    args.insert(args.begin(), {"sbatch", "--parsable"});
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(script);
    // With --wait sbatch returns when the job ends: the whole grading.
    const support::ProcessResult r = support::run_process(args, 7 * 24 * 3600.0);
    const std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    const bool waited = std::find(args.begin(), args.end(), "--wait") != args.end();
    if (r.exit_code != 0 && waited && !id.empty() &&
        id.find_first_not_of("0123456789") == std::string::npos)
      throw std::runtime_error("Slurm job " + id + " ended with an error (exit " +
                               std::to_string(r.exit_code) + "); the logs are " +
                               (dir / "gather.log").string() + " and " +
                               (dir / "task-*.log").string());
    if (r.exit_code != 0) throw std::runtime_error("sbatch failed: " + r.output);
    return id;
  };
  std::vector<std::string> array_args = {"--job-name=cudalab-grade",
                                         "--array=0-" + std::to_string(tasks - 1),
                                         "--output=" + (dir / "task-%a.log").string()};
  if (o.gpu) array_args.push_back("--gres=gpu:1");
  const std::string array = sbatch(array_args, array_script);
  std::vector<std::string> gather_args = {"--job-name=cudalab-gather",
                                          "--dependency=afterany:" + array,
                                          "--output=" + (dir / "gather.log").string()};
  if (o.slurm_wait) gather_args.push_back("--wait");
  const std::string gather = sbatch(gather_args, gather_script);
  std::cout << "submitted job array " << array << " (" << tasks << " tasks) and job " << gather
            << ", which writes " << (out / "gradebook.csv").string() << " when they end\n";
  if (o.slurm_wait) {
    std::cout << support::read_file(dir / "gather.log");
    return fs::exists(out / "gradebook.csv") ? 0 : 1;
  }
  return 0;
}

}  // namespace cudalab::cli
