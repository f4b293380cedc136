// Hostile files through the real binary, the second half (tests/test_hostile_inputs.cpp the first):
// inputs that are not regular files or are missing, FIFOs, outputs that cannot be written or exist
// already, option values out of range. Each case checks the exit code, one stderr line naming the
// file, and that nothing is left behind.
#include "hostile_support.h"

TEST_CASE("hostile: inputs that are not regular files or are missing", "[hostile]") {
    const Scratch s("not_files");
    const std::string out = " -o " + s.out + "/irr.exr -o " + s.out + "/irr.json --device cpu";
    fs::create_directories(s.dir + "/folder.hdr");
    check_refused(run_cli(s.dir + "/folder.hdr" + out), kExitInput, s.dir + "/folder.hdr: is a directory", s.out);
    // A FIFO: a naive reader would block forever waiting for a writer.
    REQUIRE(::mkfifo((s.dir + "/pipe.exr").c_str(), 0644) == 0);
    check_refused(run_cli(s.dir + "/pipe.exr" + out), kExitInput, s.dir + "/pipe.exr: not a regular file", s.out);
    // A device with endless data, behind a plausible name.
    fs::create_symlink("/dev/zero", s.dir + "/zero.hdr");
    check_refused(run_cli(s.dir + "/zero.hdr" + out), kExitInput, s.dir + "/zero.hdr: not a regular file", s.out);
    // A symlink loop and a dangling symlink.
    fs::create_symlink("loop_b.exr", s.dir + "/loop_a.exr");
    fs::create_symlink("loop_a.exr", s.dir + "/loop_b.exr");
    check_refused(run_cli(s.dir + "/loop_a.exr" + out), kExitInput, s.dir + "/loop_a.exr: ", s.out);
    fs::create_symlink("nowhere.exr", s.dir + "/dangling.exr");
    check_refused(run_cli(s.dir + "/dangling.exr" + out), kExitInput, s.dir + "/dangling.exr: no such file", s.out);
    // Missing files: plain, and one face of six.
    check_refused(run_cli(s.dir + "/missing.hdr" + out), kExitInput, s.dir + "/missing.hdr: no such file", s.out);
    for (const char* f : {"px", "nx", "py", "ny", "nz"})
        write_exr(s.dir + "/f_" + f + ".exr", constant_image(2, 2, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/f_{face}.exr" + out), kExitInput, s.dir + "/f_pz.exr: no such file", s.out);
    check_refused(run_cli("--faces " + s.dir + "/f_px.exr " + s.dir + "/f_nx.exr " + s.dir + "/f_py.exr " + s.dir +
                          "/f_ny.exr " + s.dir + "/f_gone.exr " + s.dir + "/f_nz.exr" + out),
                  kExitInput, s.dir + "/f_gone.exr: no such file", s.out);
    // A face that is not square.
    write_exr(s.dir + "/f_pz.exr", constant_image(2, 1, 1, 1, 1), EnvmapHint::None);
    check_refused(run_cli(s.dir + "/f_{face}.exr" + out), kExitInput, s.dir + "/f_pz.exr: face +Z is 2x1, not square", s.out);
}

// Issue 18 #2: with a GPU in reach, the first input's header was read (to size the upload buffers
// while it decodes) before any check that it is a regular file, so a FIFO hung every path but
// --device cpu. `timeout` turns such a hang into exit 124.
TEST_CASE("hostile: a FIFO input is refused on every device and inside a batch", "[hostile]") {
    const Scratch s("fifo");
    for (const char* name : {"pipe.exr", "pipe.hdr"}) {
        const std::string fifo = s.dir + "/" + name;
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        for (const char* device : {"auto", "gpu", "cpu"}) {
            INFO(name << " --device " << device);
            check_refused(run_cli(fifo + " -o " + s.out + "/l.json --device " + device, "timeout 60"), kExitInput,
                          fifo + ": not a regular file", s.out);
        }
        // In a batch the FIFO fails alone and the next input is baked.
        const CliResult r = run_cli(fifo + " " + kSample + " --out-dir " + s.out + " --name '{stem}.json'", "timeout 60");
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == kExitInput);
        CHECK(r.err.find(fifo + ": not a regular file") != std::string::npos);
        CHECK(file_exists(s.out + "/sample_sky.json"));
        fs::remove(s.out + "/sample_sky.json");
    }
}

TEST_CASE("hostile: outputs that cannot be written leave nothing behind", "[hostile]") {
    const Scratch s("outputs");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    // The parent "folder" is a regular file (ENOTDIR).
    write_text(s.out + "/plain", "x");
    for (const char* name : {"/plain/irr.json", "/plain/irr.exr"}) {
        const std::string out = s.out + name;
        const CliResult r = run_cli(in + " -o " + out + " --device cpu");
        INFO(r.err);
        CHECK(r.exit_code == kExitOutput);
        CHECK(line_count(r.err) == 1);
        CHECK(r.err.find(out + ": ") != std::string::npos);
        CHECK(entries(s.out) == 1);  // just "plain"
        CHECK(slurp(s.out + "/plain") == "x");
    }
    fs::remove(s.out + "/plain");

    // A folder nobody may write to. The tests run as root, for whom chmod 0555 changes nothing;
    // sysfs refuses new files to root too (EACCES; EROFS where /sys is mounted read-only, as in
    // most containers), so /sys stands in for a read-only folder. As a normal user, a chmod 0555
    // folder is tried as well.
    if (fs::is_directory("/sys")) {
        for (const char* name : {"/sys/bake_hostile_irr.exr", "/sys/bake_hostile_irr.json"}) {
            const CliResult r = run_cli(in + " -o " + name + " --device cpu");
            check_refused(r, kExitOutput, std::string(name) + ": cannot create a file in folder '/sys'", "");
            CHECK_FALSE(fs::exists(name));
        }
    } else {
        WARN("no /sys: the read-only folder case is not run");
    }
    if (::geteuid() != 0) {
        fs::create_directories(s.dir + "/readonly");
        fs::permissions(s.dir + "/readonly", fs::perms::owner_read | fs::perms::owner_exec);
        const CliResult r = run_cli(in + " -o " + s.dir + "/readonly/irr.json --device cpu");
        fs::permissions(s.dir + "/readonly", fs::perms::owner_all);
        check_refused(r, kExitOutput, s.dir + "/readonly/irr.json: ", s.dir + "/readonly");
    }
}

TEST_CASE("hostile: existing outputs: replaced by default / --no-clobber refuses before any work", "[hostile]") {
    const Scratch s("clobber");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    write_text(s.out + "/irr.exr", "old exr");
    // Default: the EXR is replaced by a complete map (read back), no temporary left.
    check_baked(run_cli(in + " -o " + s.out + "/irr.exr --device cpu --size 4"), 0, s.out, 1);
    const LoadedImage map = load_image(s.out + "/irr.exr");
    CHECK(map.image.width == 4);
    CHECK(map.image.height == 24);
    // --no-clobber with the second of two outputs existing: refused, and the first output
    // (which does not exist) is not written either; the existing one is untouched.
    const std::string before = slurp(s.out + "/irr.exr");
    CliResult r = run_cli(in + " -o " + s.out + "/new.json -o " + s.out + "/irr.exr --device cpu --no-clobber");
    INFO(r.err);
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(s.out + "/irr.exr: exists (--no-clobber)") != std::string::npos);
    CHECK_FALSE(fs::exists(s.out + "/new.json"));
    CHECK(slurp(s.out + "/irr.exr") == before);
    CHECK(entries(s.out) == 1);
    // --no-clobber is checked before the input is even read: a missing input is not reported.
    r = run_cli(s.dir + "/missing.exr -o " + s.out + "/irr.exr --device cpu --no-clobber");
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
}

TEST_CASE("hostile: numeric option values out of range are usage errors", "[hostile]") {
    const Scratch s("options");
    const std::string in = s.dir + "/in.exr";
    write_exr(in, constant_image(8, 4, 1, 2, 3), EnvmapHint::None);
    const std::string base = in + " -o " + s.out + "/irr.json --device cpu ";
    for (const char* bad : {"--max-pixels 0", "--max-pixels -1", "--max-pixels 1e3x", "--threads -1",
                            "--threads 1.5", "--size -1", "--size 8193", "--size 2147483648", "--order 25",
                            "--tolerance -1", "--tolerance 0"}) {
        INFO(bad);
        const CliResult r = run_cli(base + bad);
        CHECK(r.exit_code == kExitUsage);
        CHECK(line_count(r.err) == 1);
        CHECK(entries(s.out) == 0);
    }
}
