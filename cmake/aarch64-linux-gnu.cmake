# SPDX-License-Identifier: Apache-2.0
# Cross-compiling weft for 64-bit ARM Linux with Debian's cross toolchain
# (gcc-aarch64-linux-gnu) and running what it builds under qemu-user:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# scripts/aarch64-test.sh does this and runs the unit and stress tests.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# ctest runs the test programs through the emulator, with the target's
# libraries (libc, libpthread) found under the sysroot.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
# The C++ tests need the cross g++ (Debian's g++-aarch64-linux-gnu, which
# scripts/deps.sh installs with the C compiler).
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
