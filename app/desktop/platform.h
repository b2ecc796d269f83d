// The window, the OpenGL 3.3 context and ImGui's backends (GLFW + OpenGL3), and reading
// the rendered frame back into a PNG. Everything the app does with GLFW and GL is here.
#pragma once
#include <functional>
#include <string>

#include <imgui.h>

struct GLFWwindow;

namespace collsim::gui {

class App;

class Platform {
 public:
  Platform() = default;
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;
  ~Platform();

  // Opens a width x height window; false with `error` set when there is no display or no
  // OpenGL 3.3. `vsync` false for headless modes and benchmarks.
  bool init(int width, int height, bool vsync, std::string& error);
  bool should_close() const;
  // Rebuilds the fonts when the app asked for another UI scale, polls events, and starts
  // an ImGui frame; `inject` may change the input state first (scripted keys).
  void new_frame(App& app, const std::function<void(ImGuiIO&)>& inject = {});
  void render();  // ImGui's draw data into the back buffer
  void swap();
  void finish();  // glFinish: the frame is really drawn (benchmarks)
  // Writes the back buffer (after render, before swap) as a PNG, atomically.
  bool save_png(const std::string& path, std::string& error) const;
  void toggle_fullscreen();
  void resize(int width, int height);  // the window's size (the script's `window`)

 private:
  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  bool fonts_ready_ = false;  // the font texture is built, with nearest sampling
  int windowed_[4] = {0, 0, 0, 0};  // x, y, w, h before going full screen
};

// GLFW's last error text ("X11: The DISPLAY environment variable is missing").
std::string last_glfw_error();

}  // namespace collsim::gui
