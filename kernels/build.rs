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

    /// A C++17 build of kernel sources with the emulation header forced in.
    fn emulated() -> cc::Build {
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .include("cuda/include")
            .flag("-include")
            .flag("emu/cuda_emu.h")
            .flag_if_supported("-Wno-unused-parameter");
        build
    }

    pub fn build() {
        let sources: Vec<_> = std::fs::read_dir("cuda")
            .expect("the kernels/cuda folder")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "cu"))
            .collect();
        // `.cu` files are C++ here: say so before the file names.
        let mut kernels = emulated();
        kernels.flag("-x").flag("c++");
        for source in &sources {
            kernels.file(source);
        }
        kernels.compile("kernels_host");
        // The block scheduler, and kernels that test the emulator itself.
        emulated()
            .file(Path::new("cuda/emu/runtime.cpp"))
            .compile("kernels_emu_runtime");
        emulated()
            .file(Path::new("cuda/emu/selftest.cu.cpp"))
            .compile("kernels_emu_selftest");
        println!("cargo::rustc-link-lib=stdc++");
    }
}
