// The web page's player, compiled into collsim from app/web/player.{html,css,js}
// (embed_assets.cmake writes player_assets.cpp at build time), so that a page needs no
// file beside it.
#pragma once
#include <string_view>

namespace collsim::html {

extern const std::string_view kPlayerHtml;  // the body's markup
extern const std::string_view kPlayerCss;
extern const std::string_view kPlayerJs;
extern const std::string_view kLiveJs;  // the live page's form (live.h)

}  // namespace collsim::html
