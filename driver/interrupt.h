// Ctrl-C during `mlc run` (docs/architecture.md, Training loop): the first
// SIGINT asks the training loop to stop once the step it is in has ended;
// the loop writes a checkpoint and says where (driver/train.h
// TrainOptions::stop_on_interrupt), and `mlc run --checkpoint-dir DIR
// --resume` continues bit for bit. A second SIGINT ends the process at once
// (the default action, restored by the first). On a mesh of local ranks
// every rank sees the request and they agree on the step (an all_reduce of
// the flag after each step); under mpirun, mpirun handles SIGINT itself
// (it ends the job).
#pragma once

#include <string>

#include "driver/rank.h"

namespace mlc {

// Installs the SIGINT handler (async-signal-safe: it sets a flag).
void stop_on_interrupt();
// What the handler does; tests call it to simulate Ctrl-C.
void request_stop();
bool stop_requested();
void clear_stop_request();

// Whether the ranks stop after this step: any rank's request, agreed by an
// all_reduce over the world on a mesh (every rank calls it after every step).
Expected<bool> agreed_stop(const Rank& rank);
// Makes `dir` (the checkpoint directory of a run stopped without one).
Status prepare_interrupt_dir(const std::string& dir);

}  // namespace mlc
