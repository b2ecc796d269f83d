# Writes OUT: the player's files (DIR/player.html, player.css, player.js) and the live
# page's form (DIR/live.js) as string views
# (app/web/player_assets.h). Run by app/CMakeLists.txt at build time.
set(text "// Generated from app/web/player.* by app/web/embed_assets.cmake: do not edit.\n")
string(APPEND text "#include \"app/web/player_assets.h\"\n\nnamespace collsim::html {\n")
foreach(pair IN ITEMS "kPlayerHtml;player.html" "kPlayerCss;player.css" "kPlayerJs;player.js" "kLiveJs;live.js")
  list(GET pair 0 name)
  list(GET pair 1 file)
  file(READ "${DIR}/${file}" body)
  if(body MATCHES "\\)collsim_asset")
    message(FATAL_ERROR "${DIR}/${file} contains the raw string's delimiter ')collsim_asset'")
  endif()
  string(APPEND text "const std::string_view ${name} = R\"collsim_asset(${body})collsim_asset\";\n")
endforeach()
string(APPEND text "}  // namespace collsim::html\n")
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
