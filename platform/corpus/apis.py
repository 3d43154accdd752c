"""Dataset endpoints (filled in by the API work)."""
from rest_framework.views import APIView


class DatasetListCreateApi(APIView):
    pass


class DatasetDetailApi(APIView):
    pass


class ProblemListApi(APIView):
    pass


class DatasetImportApi(APIView):
    pass


class DatasetExportApi(APIView):
    pass
