//! Build script: with the `host` feature, compiles the CUDA sources as C++ for the emulated device.

fn main() {
    println!("cargo::rerun-if-changed=cuda");
    println!("cargo::rerun-if-changed=ptx");
    #[cfg(feature = "host")]
    host::build();
}

#[cfg(feature = "host")]
mod host {
    use std::path::Path;

    pub fn build() {
        let sources: Vec<_> = std::fs::read_dir("cuda")
            .expect("the kernels/cuda folder")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "cu"))
            .collect();
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("cuda/include")
            .flag("-x")
            .flag("c++")
            .flag("-include")
            .flag("emu/cuda_emu.h")
            .warnings(true)
            .extra_warnings(false)
            .flag_if_supported("-Wno-unused-parameter");
        for source in &sources {
            build.file(source);
        }
        build.compile("kernels_host");
        // The scheduler is plain C++ (not a kernel source): no `-x c++` games needed.
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("cuda/include")
            .flag("-include")
            .flag("emu/cuda_emu.h")
            .file(Path::new("cuda/emu/runtime.cpp"))
            .compile("kernels_emu_runtime");
        // Kernels that test the emulator itself.
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("cuda/include")
            .flag("-include")
            .flag("emu/cuda_emu.h")
            .file(Path::new("cuda/emu/selftest.cu.cpp"))
            .compile("kernels_emu_selftest");
        println!("cargo::rustc-link-lib=stdc++");
    }
}
