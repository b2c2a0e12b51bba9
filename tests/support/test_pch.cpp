// The translation unit that compiles the engine tests' shared precompiled header
// (tests/CMakeLists.txt); it has no code of its own.
