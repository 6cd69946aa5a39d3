// Output paths checked before the work that produces them: a run that trains
// for an hour, or a compile, should not end by failing to write its file.
//
// Contracts (each returns "" when the write can go ahead, else what is wrong,
// a phrase without the path's own name in front):
//  - output_file_problem(path): `path` can be written as a file now (by
//    write_file_atomically, or created and appended to): it does not name a
//    directory (an existing one, or a name ending in '/'); its directory
//    exists, each component of it a directory; and a file can be created in
//    that directory, which is checked by creating one (create_temp_file's
//    name, next to `path`) and removing it, so that read-only mounts, /proc
//    and permissions are found out as the write itself would find them.
//      "'out' is a directory: give a file name in it"
//      "directory 'a/b' does not exist"
//      "'base.mlc' is a file, not a directory"
//      "cannot create a file in directory '/proc': No such file or directory"
//  - output_directory_problem(dir): files can be created in `dir`: it is a
//    directory in which a file can be created, or it does not exist yet and
//    its nearest existing ancestor is such a directory (the writer creates
//    the rest).
#pragma once

#include <string>

namespace mlc::rt {

std::string output_file_problem(const std::string& path);
std::string output_directory_problem(const std::string& dir);

}  // namespace mlc::rt
