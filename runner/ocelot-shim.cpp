/*
 * ocelot-shim: one C function over gpuocelot's emulator, for `ptxvec-runner --api
 * ocelot` (runner/README.md). It is built against gpuocelot's headers and linked
 * with its library, outside this repository:
 *
 *   g++ -std=c++14 -O2 -shared -fPIC -I<gpuocelot>/ocelot/include \
 *       -I<gpuocelot>/ocelot/ThirdParty/hydrazine/include \
 *       -o libptxvec-ocelot.so runner/ocelot-shim.cpp -L<build> -lgpuocelot -Wl,-rpath,<build>
 *
 * Why a shim: gpuocelot's one C entry point, `ptx_run`, builds its kernel with no
 * device, so a module's `.global` variables are given no memory (the self-checking
 * modules keep their records in `.global` arrays), and it lets every C++ exception
 * through. Here the module is loaded on an `executive::EmulatorDevice`, which
 * allocates and initialises the module's globals, and each exception becomes a
 * status and a message.
 */
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <ocelot/executive/EmulatorDevice.h>
#include <ocelot/ir/Dim3.h>
#include <ocelot/ir/Module.h>

namespace {

void say(char *msg, size_t len, const std::string &what)
{
	if (len == 0)
		return;
	std::strncpy(msg, what.c_str(), len - 1);
	msg[len - 1] = 0;
}

/* What gpuocelot said, on one line. Its parser's message is a page: a first line,
 * the source around the error with line numbers, and last `(LINE, COLUMN):  syntax
 * error`; it becomes the first and last lines and the source line named. */
std::string one_line(const std::string &what)
{
	std::vector<std::string> lines;
	std::istringstream in(what);
	for (std::string l; std::getline(in, l);) {
		size_t b = l.find_first_not_of(" \t\r"), e = l.find_last_not_of(" \t\r");
		if (b != std::string::npos)
			lines.push_back(l.substr(b, e - b + 1));
	}
	if (lines.empty())
		return what;
	if (lines.size() == 1)
		return lines[0];
	std::string out = lines.front() + " " + lines.back();
	unsigned at = 0;
	if (std::sscanf(lines.back().c_str(), "(%u,", &at) == 1) {
		std::string prefix = std::to_string(at) + " ";
		for (size_t i = 1; i + 1 < lines.size(); i++) {
			if (lines[i].compare(0, prefix.size(), prefix) == 0) {
				size_t b = lines[i].find_first_not_of(' ', prefix.size());
				out += " at `" + lines[i].substr(b == std::string::npos ? prefix.size() : b) + "`";
				break;
			}
		}
	}
	return out;
}

} // namespace

/*
 * Runs the entry `entry` of the PTX text `ptx` over a grid of `grid` CTAs of
 * `block` threads, its one `.param .u64` the address of a buffer of `bytes` bytes
 * that holds `buf` before the launch and is copied back into `buf` after it.
 * 0: it ran; 1: gpuocelot threw, while parsing or running (`msg` holds what it
 * said).
 */
extern "C" int ptxvec_ocelot_run(const char *ptx, const char *entry, unsigned grid, unsigned block,
				 unsigned char *buf, size_t bytes, char *msg, size_t msg_len)
{
	static int module_id;
	try {
		std::istringstream text(ptx);
		ir::Module module(&module_id, text);
		executive::EmulatorDevice device;
		device.select();
		device.load(&module);
		executive::Device::MemoryAllocation *out = device.allocate(bytes);
		std::memcpy(out->pointer(), buf, bytes);
		void *arg = out->pointer();
		device.launch(module.id(), entry, ir::Dim3((int)grid, 1, 1), ir::Dim3((int)block, 1, 1), 0,
			      &arg, sizeof arg);
		device.synchronize();
		std::memcpy(buf, out->pointer(), bytes);
		device.unselect();
		return 0;
	} catch (const std::exception &e) {
		say(msg, msg_len, "gpuocelot error: " + one_line(e.what()));
	} catch (...) {
		say(msg, msg_len, "gpuocelot error: an exception that is not a std::exception");
	}
	return 1;
}
