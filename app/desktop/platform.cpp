#include "app/desktop/platform.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include "app/desktop/app.h"

namespace collsim::gui {
namespace {

std::string g_glfw_error;

void on_glfw_error(int code, const char* text) { g_glfw_error = fmt::format("{} (GLFW error {:#x})", text, code); }

}  // namespace

std::string last_glfw_error() { return g_glfw_error; }

bool Platform::init(int width, int height, bool vsync, std::string& error) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    error = last_glfw_error();
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, "collsim", nullptr, nullptr);
  if (!window_) {
    error = fmt::format("cannot create an OpenGL 3.3 window: {}", last_glfw_error());
    return false;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini: the layout is fixed
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  imgui_ready_ = true;
  return true;
}

Platform::~Platform() {
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Platform::should_close() const { return glfwWindowShouldClose(window_); }

namespace {

// ImGui draws text at whole pixels and fills through the atlas's white texel, so nearest
// sampling gives the same picture as bilinear — at a fraction of the cost on a software
// rasteriser (llvmpipe spends most of a frame sampling textures). Lines are anti-aliased
// by geometry instead of by the texture (see apply_style).
void use_nearest_sampling() {
  const auto texture = static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(ImGui::GetIO().Fonts->TexID));
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

void rebuild_fonts_texture() {
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  use_nearest_sampling();
}

}  // namespace

void Platform::new_frame(App& app, const std::function<void(ImGuiIO&)>& inject) {
  if (!fonts_ready_ || app.requested_scale > 0) {
    if (app.requested_scale > 0) {
      app.toggles.ui_scale = app.requested_scale;
      app.requested_scale = 0;
      app.fonts = load_fonts(app.toggles.ui_scale);
      apply_style(app.toggles.ui_scale);
    }
    rebuild_fonts_texture();
    fonts_ready_ = true;
  }
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (inject) inject(ImGui::GetIO());
  ImGui::NewFrame();
}

void Platform::render() {
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  const ImVec4 bg = ImGui::ColorConvertU32ToFloat4(colors::background);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Platform::swap() { glfwSwapBuffers(window_); }

void Platform::finish() { glFinish(); }

bool Platform::save_png(const std::string& path, std::string& error) const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  std::vector<unsigned char> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // OpenGL's rows run bottom-up
  const std::string tmp = path + ".tmp";
  if (!stbi_write_png(tmp.c_str(), w, h, 3, pixels.data(), w * 3)) {
    std::remove(tmp.c_str());
    error = fmt::format("{}: cannot write the PNG file", path);
    return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    error = fmt::format("{}: {}", path, ec.message());
    return false;
  }
  return true;
}

void Platform::resize(int width, int height) {
  glfwSetWindowSize(window_, width, height);
  glfwPollEvents();
}

void Platform::toggle_fullscreen() {
  if (glfwGetWindowMonitor(window_)) {
    glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
    return;
  }
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (!mode) return;
  glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
  glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
  glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

}  // namespace collsim::gui
