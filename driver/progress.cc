#include "driver/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mlc {

std::string format_progress_line(int64_t done, int64_t total, double steps_per_s, double loss,
                                 double eta_s, int width) {
  char text[160];
  std::snprintf(text, sizeof text, " %lld/%lld  %.1f steps/s  loss %.4f  ETA %.0fs",
                static_cast<long long>(done), static_cast<long long>(total), steps_per_s, loss,
                eta_s);
  std::string tail = text;
  width = std::max(width, 0);
  constexpr int kMinBar = 10;
  int bar = width - static_cast<int>(tail.size()) - 2;  // the brackets
  if (bar < kMinBar) {
    std::string line = tail.substr(1);
    return line.substr(0, static_cast<size_t>(width));
  }
  int filled = static_cast<int>(bar * std::clamp<int64_t>(done, 0, total) / std::max<int64_t>(total, 1));
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(bar - filled), '.') + "]" + tail;
}

int terminal_width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

Progress::Progress(bool bar, int64_t total) : bar_(bar), total_(total), start_(Clock::now()) {}

void Progress::erase_bar() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  drawn_ = false;
}

void Progress::step(int64_t done, double loss) {
  if (!bar_) return;
  auto now = Clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = elapsed > 0 ? done / elapsed : 0;
  double eta = rate > 0 ? (total_ - done) / rate : 0;
  std::string line = format_progress_line(done, total_, rate, loss, eta, terminal_width() - 1);
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  drawn_ = true;
  if (done == total_) erase_bar();
  std::fflush(stderr);
}

void Progress::epoch(int64_t epoch, int64_t epochs, double mean_loss,
                     const std::optional<EvalResult>& eval) {
  erase_bar();
  std::fprintf(stderr, "epoch %lld/%lld: mean loss %.5f", static_cast<long long>(epoch + 1),
               static_cast<long long>(epochs), mean_loss);
  if (eval) {
    std::fprintf(stderr, "  %s loss %.5f", eval_label(*eval).c_str(), eval->loss);
    if (eval->accuracy) std::fprintf(stderr, "  accuracy %.4f", *eval->accuracy);
  }
  std::fputc('\n', stderr);
}

void Progress::eval(int64_t steps_done, const EvalResult& eval) {
  erase_bar();
  std::fprintf(stderr, "step %lld/%lld: %s loss %.5f", static_cast<long long>(steps_done),
               static_cast<long long>(total_), eval_label(eval).c_str(), eval.loss);
  if (eval.accuracy) std::fprintf(stderr, "  accuracy %.4f", *eval.accuracy);
  std::fputc('\n', stderr);
}

}  // namespace mlc
