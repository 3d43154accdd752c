"""The floor every app may import: the user-facing error base and its HTTP mapping (``errors``),
DRF fields (``fields``), permissions (``permissions``), the OpenAPI schema's common error responses
(``schema``) and serializer bases (``serializers``). It imports no other app of the platform."""
