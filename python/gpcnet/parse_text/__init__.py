"""Turn the text output of network_test / network_load_test into a results
document (`"source": "text"`).

Both the reference v1.3 output and ours are read, default and verbose. The
tables are recognised by their borders and titles, and their columns by the
header row, so a wider number (printf never truncates %12.1f) or an extra
column does not throw the parser off. Anything the text does not carry is
null, never guessed.

By concern: scan.py finds the header, the preamble and the bordered
tables; rows.py reads table rows; settings.py reads our `Settings` block;
document.py assembles the results document. Every pattern is matched in
time linear in the line (no pattern can backtrack over a run of spaces), so
a hostile input costs what its length costs.
"""

from gpcnet.parse_text.document import parse_text

__all__ = ["parse_text"]
