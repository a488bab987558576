/*
 * ptxvec-runner: launches the `ptxvec_raw` entry of one self-checking module on
 * whatever CUDA engine the loaded library is (a GPU's driver, a simulator's
 * libcudart, a translation layer), and writes the raw buffer back. `ptxvec
 * run-engine` calls it once per module; runner/README.md gives the protocol.
 *
 *   ptxvec-runner [--api driver|runtime|gpgpu-sim|ocelot] [--lib PATH] [--sm N]
 *                 MODULE ENTRY GRID BLOCK OUT_BYTES POISON OUT
 *
 * The buffer is OUT_BYTES bytes, each POISON before the launch, so that a slot
 * the engine never writes is told from one it writes. Exit 0 with OUT written;
 * 3 when the runner cannot run the module at all; 1 on any other failure (the
 * message on stderr). A crash of the engine is the engine's: the caller sees the
 * signal.
 *
 * The engine's library is opened at run time (dlopen), so that one binary serves
 * every engine; the CUDA headers give the types only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

enum { CANNOT_RUN = 3 };

static void die(const char *what, long code)
{
	fprintf(stderr, "ptxvec-runner: %s (%ld)\n", what, code);
	exit(1);
}

static void *lib;

/* The symbol `name` of the engine's library, or exit naming it. */
static void *sym(const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "ptxvec-runner: the library has no %s\n", name);
		exit(1);
	}
	return p;
}

/* The whole file, NUL-terminated (a PTX module is text). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ptxvec-runner: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			die("out of memory", 0);
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	fclose(f);
	buf[n] = 0;
	return buf;
}

static unsigned long number(const char *what, const char *text)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 0);
	if (errno || *end || end == text) {
		fprintf(stderr, "ptxvec-runner: %s: not a number: %s\n", what, text);
		exit(2);
	}
	return v;
}

struct launch {
	const char *module, *entry, *out;
	unsigned grid, block;
	size_t bytes;
	unsigned char poison;
	unsigned sm; /* --sm; 0: the engine's default */
};

#define CU(call)                                                     \
	do {                                                         \
		CUresult r_ = (call);                                \
		if (r_ != CUDA_SUCCESS)                              \
			die(#call, (long)r_);                        \
	} while (0)
#define RT(call)                                                     \
	do {                                                         \
		cudaError_t r_ = (call);                             \
		if (r_ != cudaSuccess)                               \
			die(#call, (long)r_);                        \
	} while (0)

/* The driver API alone: what a GPU's libcuda and libraries that stand in for it
 * (ZLUDA) implement. */
static void run_driver(const struct launch *l, unsigned char *host)
{
	CUresult (*init)(unsigned) = sym("cuInit");
	CUresult (*device_get)(CUdevice *, int) = sym("cuDeviceGet");
	CUresult (*retain)(CUcontext *, CUdevice) = sym("cuDevicePrimaryCtxRetain");
	CUresult (*set_current)(CUcontext) = sym("cuCtxSetCurrent");
	CUresult (*load)(CUmodule *, const void *) = sym("cuModuleLoadData");
	CUresult (*function)(CUfunction *, CUmodule, const char *) = sym("cuModuleGetFunction");
	CUresult (*alloc)(CUdeviceptr *, size_t) = sym("cuMemAlloc_v2");
	CUresult (*set8)(CUdeviceptr, unsigned char, size_t) = sym("cuMemsetD8_v2");
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, CUstream, void **, void **) = sym("cuLaunchKernel");
	CUresult (*sync)(void) = sym("cuCtxSynchronize");
	CUresult (*dtoh)(void *, CUdeviceptr, size_t) = sym("cuMemcpyDtoH_v2");

	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUdeviceptr buf;
	char *text = slurp(l->module);
	CU(init(0));
	CU(device_get(&dev, 0));
	CU(retain(&ctx, dev));
	CU(set_current(ctx));
	CU(load(&mod, text));
	CU(function(&f, mod, l->entry));
	CU(alloc(&buf, l->bytes));
	CU(set8(buf, l->poison, l->bytes));
	void *args[] = { &buf };
	CU(launch(f, l->grid, 1, 1, l->block, 1, 1, 0, NULL, args, NULL));
	CU(sync());
	CU(dtoh(host, buf, l->bytes));
	free(text);
}

/* Memory through the runtime API, as engines that replace libcudart intercept it. */
static CUdeviceptr runtime_buffer(const struct launch *l)
{
	cudaError_t (*malloc_)(void **, size_t) = sym("cudaMalloc");
	cudaError_t (*memset_)(void *, int, size_t) = sym("cudaMemset");
	void *buf;
	RT(malloc_(&buf, l->bytes));
	RT(memset_(buf, l->poison, l->bytes));
	return (CUdeviceptr)buf;
}

static void runtime_finish(const struct launch *l, CUdeviceptr buf, unsigned char *host)
{
	cudaError_t (*sync)(void) = sym("cudaDeviceSynchronize");
	cudaError_t (*copy)(void *, const void *, size_t, enum cudaMemcpyKind) = sym("cudaMemcpy");
	RT(sync());
	RT(copy(host, (void *)buf, l->bytes, cudaMemcpyDeviceToHost));
}

/* The runtime API alone: a library loaded from PTX text (CUDA 12 and later). */
static void run_runtime(const struct launch *l, unsigned char *host)
{
#if CUDART_VERSION >= 12000
	cudaError_t (*load)(cudaLibrary_t *, const void *, enum cudaJitOption *, void **, unsigned,
			    enum cudaLibraryOption *, void **, unsigned) = sym("cudaLibraryLoadData");
	cudaError_t (*kernel)(cudaKernel_t *, cudaLibrary_t, const char *) = sym("cudaLibraryGetKernel");
	cudaError_t (*launch)(const void *, dim3, dim3, void **, size_t, cudaStream_t) =
		sym("cudaLaunchKernel");
	cudaLibrary_t library;
	cudaKernel_t k;
	char *text = slurp(l->module);
	RT(load(&library, text, NULL, NULL, 0, NULL, NULL, 0));
	RT(kernel(&k, library, l->entry));
	CUdeviceptr buf = runtime_buffer(l);
	void *args[] = { &buf };
	dim3 grid = { l->grid, 1, 1 }, block = { l->block, 1, 1 };
	RT(launch((const void *)k, grid, block, args, 0, NULL));
	runtime_finish(l, buf, host);
	free(text);
#else
	(void)l;
	(void)host;
	fprintf(stderr, "ptxvec-runner: --api runtime needs CUDA 12 headers (cudaLibraryLoadData)\n");
	exit(CANNOT_RUN);
#endif
}

/* GPGPU-Sim 4.2's libcudart: its cuModuleLoadData and cuModuleGetFunction return
 * success without doing anything, and its cuMemAlloc does not allocate. It parses
 * PTX given at run time through cuLinkAddFile (once per process, the file named
 * relative to $PTX_JIT_PATH, into fat binary handle 1), takes each kernel's
 * resource usage from ptxas through gpgpu_context::gpgpu_ptx_info_load_from_filename
 * (without it the launch asserts), binds an entry to a host address through
 * __cudaRegisterFunction, and launches with cuLaunchKernel. */
static void run_gpgpu_sim(const struct launch *l, unsigned char *host)
{
	CUresult (*link_create)(unsigned, CUjit_option *, void **, CUlinkState *) = sym("cuLinkCreate_v2");
	CUresult (*link_file)(CUlinkState, CUjitInputType, const char *, unsigned, CUjit_option *,
			      void **) = sym("cuLinkAddFile_v2");
	void (*register_function)(void **, const char *, char *, const char *, int, void *, void *,
				  void *, void *, int *) = sym("__cudaRegisterFunction");
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, CUstream, void **, void **) = sym("cuLaunchKernel");
	void *(*context)(void) = sym("_Z13GPGPU_Contextv");
	void (*ptx_info)(void *, const char *, unsigned) =
		sym("_ZN13gpgpu_context33gpgpu_ptx_info_load_from_filenameEPKcj");

	/* The first runtime call builds the simulated GPU. */
	CUdeviceptr buf = runtime_buffer(l);

	/* It appends to the string getenv returns: give it room. */
	static char jit_path[8192];
	const char *slash = strrchr(l->module, '/');
	size_t dir = slash ? (size_t)(slash - l->module) : 1;
	if (dir + 32 > sizeof jit_path)
		die("module path too long", (long)dir);
	memset(jit_path, 0, sizeof jit_path);
	snprintf(jit_path, sizeof jit_path, "PTX_JIT_PATH=%.*s", (int)dir, slash ? l->module : ".");
	putenv(jit_path);
	/* Its scanner reads stdin when the file is missing. */
	FILE *check = fopen(l->module, "r");
	if (!check) {
		fprintf(stderr, "ptxvec-runner: %s: %s\n", l->module, strerror(errno));
		exit(1);
	}
	fclose(check);

	CUlinkState state;
	CU(link_create(0, NULL, NULL, &state));
	CU(link_file(state, CU_JIT_INPUT_PTX, slash ? slash + 1 : l->module, 0, NULL, NULL));
	ptx_info(context(), l->module, l->sm ? l->sm : 90);
	static char key;
	register_function((void **)1, &key, (char *)l->entry, l->entry, -1, NULL, NULL, NULL, NULL, NULL);
	void *args[] = { &buf };
	CU(launch((CUfunction)(void *)&key, l->grid, 1, 1, l->block, 1, 1, 0, NULL, args, NULL));
	runtime_finish(l, buf, host);
}

/* The module's text with its `.target` directive (the whole line) made
 * `.target sm_<sm>`; the rest as it was. */
static char *retarget(const char *text, unsigned sm)
{
	const char *at = text;
	for (;;) {
		at = strstr(at, ".target");
		if (!at)
			return NULL;
		/* The directive starts a line. */
		const char *bol = at;
		while (bol > text && (bol[-1] == ' ' || bol[-1] == '\t'))
			bol--;
		if (bol == text || bol[-1] == '\n')
			break;
		at += 7;
	}
	const char *eol = strchr(at, '\n');
	if (!eol)
		eol = at + strlen(at);
	size_t head = (size_t)(at - text), rest = strlen(eol);
	char *out = malloc(head + 32 + rest + 1);
	if (!out)
		die("out of memory", 0);
	memcpy(out, text, head);
	int n = snprintf(out + head, 32, ".target sm_%u", sm);
	memcpy(out + head + n, eol, rest + 1);
	return out;
}

/* gpuocelot's emulator, through our shim over it (runner/ocelot-shim.cpp, built
 * as libptxvec-ocelot.so): gpuocelot's own C entry point, `ptx_run`, gives a
 * module's `.global` variables no memory. Its lexer (ptx.ll) names no target
 * after sm_35, and nothing after its parser reads the target
 * (PTXParser::State::targetElement only records it), so the module's `.target` is
 * lowered to `sm_<--sm>` (default 35). Any `.version` from 2.0 on parses. */
static void run_ocelot(const struct launch *l, unsigned char *host)
{
	int (*run)(const char *, const char *, unsigned, unsigned, unsigned char *, size_t, char *,
		   size_t) = sym("ptxvec_ocelot_run");
	char *text = slurp(l->module);
	char *lowered = retarget(text, l->sm ? l->sm : 35);
	if (!lowered) {
		fprintf(stderr, "ptxvec-runner: %s: no .target directive\n", l->module);
		exit(CANNOT_RUN);
	}
	memset(host, l->poison, l->bytes);
	static char said[4096];
	if (run(lowered, l->entry, l->grid, l->block, host, l->bytes, said, sizeof said) != 0) {
		fprintf(stderr, "ptxvec-runner: %s\n", said);
		exit(1);
	}
	free(lowered);
	free(text);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ptxvec-runner [--api driver|runtime|gpgpu-sim|ocelot] [--lib PATH] [--sm N]\n"
		"                     MODULE ENTRY GRID BLOCK OUT_BYTES POISON OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *api = "driver", *path = NULL;
	struct launch l = { .sm = 0 };
	int i = 1;
	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (!strcmp(argv[i], "--api"))
			api = argv[i + 1];
		else if (!strcmp(argv[i], "--lib"))
			path = argv[i + 1];
		else if (!strcmp(argv[i], "--sm"))
			l.sm = (unsigned)number("--sm", argv[i + 1]);
		else
			usage();
	}
	if (argc - i != 7)
		usage();
	l.module = argv[i];
	l.entry = argv[i + 1];
	l.grid = (unsigned)number("GRID", argv[i + 2]);
	l.block = (unsigned)number("BLOCK", argv[i + 3]);
	l.bytes = number("OUT_BYTES", argv[i + 4]);
	l.poison = (unsigned char)number("POISON", argv[i + 5]);
	l.out = argv[i + 6];
	if (!l.grid || !l.block || !l.bytes)
		usage();

	void (*run)(const struct launch *, unsigned char *);
	const char *fallback;
	if (!strcmp(api, "driver")) {
		run = run_driver;
		fallback = "libcuda.so.1";
	} else if (!strcmp(api, "runtime")) {
		run = run_runtime;
		fallback = "libcudart.so";
	} else if (!strcmp(api, "gpgpu-sim")) {
		run = run_gpgpu_sim;
		fallback = "libcudart.so";
	} else if (!strcmp(api, "ocelot")) {
		run = run_ocelot;
		fallback = "libptxvec-ocelot.so";
	} else {
		usage();
		return 2;
	}
	lib = dlopen(path ? path : fallback, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "ptxvec-runner: cannot open the engine's library: %s\n", dlerror());
		return 1;
	}
	/* Simulators print to stdout and abort: keep what they said. */
	setvbuf(stdout, NULL, _IONBF, 0);
	unsigned char *host = malloc(l.bytes);
	if (!host)
		die("out of memory", (long)l.bytes);
	run(&l, host);
	FILE *out = fopen(l.out, "wb");
	if (!out || fwrite(host, 1, l.bytes, out) != l.bytes || fclose(out) != 0) {
		fprintf(stderr, "ptxvec-runner: %s: %s\n", l.out, strerror(errno));
		return 1;
	}
	free(host);
	return 0;
}
