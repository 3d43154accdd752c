"""Job status over REST: `GET jobs/`, `GET jobs/{id}/`, `POST jobs/{id}/cancel/`."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsStaff

from .models import Job
from .selectors import job_list
from .services import job_cancel


class JobSerializer(serializers.ModelSerializer):
    # Jobs beat starts (the reaper, periodic retrains) have neither a dataset nor a user.
    dataset = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    eta_seconds = serializers.FloatField(read_only=True, allow_null=True,
                                         help_text="seconds left at the pace so far (running jobs past 2 %)")

    class Meta:
        model = Job
        fields = [
            "id", "kind", "status", "progress", "params", "result", "partial", "error", "log", "queue",
            "attempts", "requeues", "dataset", "created_by", "created_at", "started_at", "finished_at",
            "eta_seconds", "cancel_requested",
        ]
        read_only_fields = fields


@extend_schema_view(
    get=extend_schema(
        parameters=[
            OpenApiParameter(
                "status", OpenApiTypes.STR, enum=list(Job.Status.values), description="Only jobs in this state."
            )
        ]
    )
)
class JobListApi(generics.ListAPIView):
    permission_classes = [IsStaff]
    serializer_class = JobSerializer

    def get_queryset(self):
        qs = job_list(user=self.request.user)
        status = self.request.query_params.get("status", "").strip()
        if status:
            if status not in Job.Status.values:
                raise ValidationError({"status": [f"Not one of: {', '.join(Job.Status.values)}."]})
            qs = qs.filter(status=status)
        return qs


class JobDetailApi(APIView):
    permission_classes = [IsStaff]

    @extend_schema(responses=JobSerializer)
    def get(self, request, job_id: int):
        job = get_object_or_404(job_list(user=request.user), pk=job_id)
        return Response(JobSerializer(job).data)


class JobCancelApi(APIView):
    """Ask a job to stop: a queued one is cancelled at once, a running one at its next progress
    report; a finished one is returned as it is. → 200 with the job."""

    permission_classes = [IsStaff]

    @extend_schema(request=None, responses=JobSerializer)
    def post(self, request, job_id: int):
        job = get_object_or_404(job_list(user=request.user), pk=job_id)
        job = job_cancel(job_id=job.pk)
        return Response(JobSerializer(job).data)
