"""The JSON-lines report and the marker lines.

write     : one event appended with O_APPEND; rotation
segments  : the report's rotated segments, oldest first
read      : the reader half: torn and garbled lines skipped with a warning
markers   : `[safe-delete][...]` lines on stderr, and whom a refusal is judged for
markerscan: a stdlib reader of marker lines, for harnesses

May import: contract (host), the leaves of core/.
"""
