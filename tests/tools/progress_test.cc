// The progress line of `mlc run` (driver/progress.h) fits the width it is given.
#include <gtest/gtest.h>

#include "driver/progress.h"

namespace mlc {
namespace {

TEST(ProgressLine, FitsTheTerminalWidth) {
  for (int width : {0, 5, 20, 40, 51, 52, 80, 200}) {
    std::string line = format_progress_line(12, 40, 3.25, 2.30119, 8.6, width);
    EXPECT_LE(static_cast<int>(line.size()), width) << width;
  }
  // 80 columns: the text takes 40, the brackets 2, the bar 38 (12/40 of it filled).
  EXPECT_EQ(format_progress_line(12, 40, 3.25, 2.30119, 8.6, 80),
            "[" + std::string(11, '#') + std::string(27, '.') +
                "] 12/40  3.2 steps/s  loss 2.3012  ETA 9s");
  // Wide terminals get a longer bar; the text stays whole.
  std::string wide = format_progress_line(40, 40, 3.25, 2.30119, 0, 200);
  EXPECT_EQ(wide.size(), 200u);
  EXPECT_EQ(wide.find('.'), wide.find("3.2") + 1);  // a full bar: the first '.' is the text's
  // Too narrow for a bar: the text alone, cut.
  EXPECT_EQ(format_progress_line(12, 40, 3.25, 2.30119, 8.6, 20), "12/40  3.2 steps/s  ");
}

}  // namespace
}  // namespace mlc
