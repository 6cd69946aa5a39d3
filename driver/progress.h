// The live progress of `mlc run` on stderr: a bar redrawn in place on a
// terminal, one line per epoch either way.
//
// Contracts:
//  - format_progress_line returns at most `width` columns of ASCII:
//    "[#####.....] 12/40  3.2 steps/s  loss 2.3012  ETA 9s". The bar takes the
//    columns the text leaves (at least 10, else there is no bar); a width
//    below the text's cuts the text.
//  - Progress redraws at most every 100 ms (and at the last step), as
//    "\r<line>\x1b[K": the rest of the old line is erased, so nothing stale
//    stays when the line gets shorter. The width is the terminal's
//    (TIOCGWINSZ on stderr, else $COLUMNS, else 80), read at each redraw, less
//    one column (a full line would wrap on some terminals).
//  - Before an epoch or evaluation line and after the last step the bar's line is erased:
//    the bar never stays behind as a line of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "driver/evaluate.h"

namespace mlc {

std::string format_progress_line(int64_t done, int64_t total, double steps_per_s, double loss,
                                 double eta_s, int width);

// Columns of the terminal on stderr.
int terminal_width();

class Progress {
 public:
  Progress(bool bar, int64_t total);
  ~Progress() { erase_bar(); }  // a run that stops early leaves no bar behind
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void step(int64_t done, double loss);
  // "epoch 1/14: mean loss 1.85800  eval loss ...": `mean_loss` is the
  // epoch's mean training loss, the metrics file's {"epoch", "train"} loss.
  void epoch(int64_t epoch, int64_t epochs, double mean_loss, const std::optional<EvalResult>& eval);
  // An evaluation between epochs (train.eval_every): "step 40/135: eval loss ...".
  void eval(int64_t steps_done, const EvalResult& eval);

 private:
  using Clock = std::chrono::steady_clock;
  void erase_bar();

  bool bar_;
  bool drawn_ = false;
  int64_t total_;
  Clock::time_point start_, last_;
};

}  // namespace mlc
