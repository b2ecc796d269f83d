// Captions and questions (captions.h). PLACEHOLDER until the captions helper lands it.
#include "sim/captions.h"
#include "sim/errors.h"
namespace collsim {
std::string_view caption_placeholders() { return "{src} {dst} {chunk} {bytes} {step} {steps} {step_bytes} {phase} {phases} {ranks} {label}"; }
void check_caption(std::string_view, const std::string&) {}
CaptionContext caption_context(const Schedule&, int, int, int) { throw InputError("caption_context: not implemented yet"); }
std::string expand_caption(std::string_view text, const CaptionContext&) { return std::string(text); }
std::string step_caption(const Phase&, const Schedule&, int, int, int) { throw InputError("step_caption: not implemented yet"); }
Answer answer_question(const Question&, const ProgramResult&) { throw InputError("answer_question: not implemented yet"); }
}  // namespace collsim
