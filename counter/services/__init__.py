"""The service layer: every way in (HTML forms, JSON API) reads and changes matches here.

Functions take the browser's owner key and typed values as keyword arguments
(read from the request by :mod:`counter.game.parsing` before they get here), apply
the rules of :mod:`counter.game.scoring`, persist through SQLAlchemy and hand back
read models (:mod:`counter.services.read_models`). A match that belongs to
another browser is reported exactly like one that does not exist.

- ``matches``: start, read, list, change, continue and delete matches
- ``deals``: record, undo, correct and delete deals
- ``sharing``: read-only links to one match
- ``keys``: a browser's key: another device, rotation, erasing everything
- ``archive``: export and import
- ``statistics``: each pair of players' record
- ``read_models``, ``queries``, ``series``, ``transactions``, ``defaults``: what the
  others share
"""
