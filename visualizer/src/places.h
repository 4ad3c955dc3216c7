// Where things are drawn, for the snapshots that F12 saves (--snapshots
// DIR): while a snapshot's frame is drawn, each view notes its named places
// ("heatmap:c", "steps:next", "source:file.cu:14", "access:3"), one line
// each, "NAME X Y W H" in window pixels, and the frame's text is captured
// through Dear ImGui's logging. A bug report, or a test that drives the
// viewer with the mouse and keys, reads where to point from them.
#pragma once

#include <imgui.h>

#include <string>

namespace cudalab::viz {

// Notes the last widget's rectangle as `name` (spaces become '_'); a grid
// of cells (a heatmap) adds its cell size and columns: "... cell 12.50
// columns 64". Does nothing outside a snapshot's frame.
void note_place(const std::string& name, float cell = 0, int columns = 0);

// Text drawn straight on a draw list (not by a widget): into the snapshot's
// text too.
void note_text(ImVec2 at, const char* text);

// Dear ImGui's log stops at the end of every window (and tooltip): before
// each window's ImGui::Begin, and after each tooltip, this starts it again,
// so that a snapshot's text has every window. Does nothing outside a
// snapshot's frame.
void note_window_text();

// What one frame showed: its text, as Dear ImGui's log writes it, and its
// places, one a line.
struct FrameRecord {
  std::string text;
  std::string places;
};

// Around the drawing of a snapshot's frame (after ImGui::NewFrame, before
// ImGui::Render): the first starts noting places and capturing text, the
// second adds every window and tab that was drawn and returns it all.
void begin_frame_record();
FrameRecord end_frame_record();

}  // namespace cudalab::viz
