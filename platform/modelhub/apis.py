"""Model versions over REST: ``GET models/?kind=paraqd|stead|pap`` and ``POST models/{kind}/retrain/`` (staff)."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import UserError
from core.permissions import IsStaff

from .calibration import CalibrationError
from .calibration_jobs import calibrate_start, deciding_judge_refit
from .judging import judge_kinds
from .kinds.registry import kind_names
from .models import ModelVersion
from .selectors import modelversion_active, modelversion_list
from .services import RetrainBusy, RetrainError, model_retrain_start


class ModelVersionSerializer(serializers.ModelSerializer):
    job = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    is_active = serializers.SerializerMethodField()

    class Meta:
        model = ModelVersion
        fields = [
            "id", "kind", "name", "status", "is_active", "base_model", "artifact_path", "params", "metrics",
            "training_data", "job", "created_by", "created_at", "activated_at",
        ]
        read_only_fields = fields

    def get_is_active(self, obj: ModelVersion) -> bool:
        return obj.status == ModelVersion.Status.ACTIVE


class ModelListQuerySerializer(serializers.Serializer):
    kind = serializers.CharField(required=False, help_text="A registered model kind (paraqd, judge, stead, pap, ...).")

    def validate_kind(self, value: str) -> str:
        if value not in kind_names():
            raise serializers.ValidationError(f'"{value}" is not a valid choice.')
        return value


@extend_schema_serializer(many=False)  # one page, not a list of pages
class ModelVersionPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    active = serializers.DictField(child=serializers.IntegerField(allow_null=True),
                                   help_text="Each kind's active version id (null: none).")
    results = ModelVersionSerializer(many=True)


class ModelVersionListApi(generics.ListAPIView):
    """Versions newest first, with their metrics; ``active`` maps each kind to its active version id."""

    permission_classes = [IsStaff]
    serializer_class = ModelVersionSerializer

    def _kind(self) -> str | None:
        query = ModelListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return query.validated_data.get("kind")

    def get_queryset(self):
        return modelversion_list(kind=self._kind())

    @extend_schema(
        parameters=[OpenApiParameter("kind", str, enum=kind_names(), required=False)],
        responses=ModelVersionPageSerializer,
    )
    def get(self, request, *args, **kwargs):
        response = self.list(request, *args, **kwargs)
        kind = self._kind()
        kinds = [kind] if kind else kind_names()
        active = {}
        for name in kinds:
            version = modelversion_active(kind=name)
            active[name] = version.pk if version else None
        response.data["active"] = active
        return response


class ModelRetrainApi(APIView):
    """``POST models/{kind}/retrain/`` (staff): start retraining now, whatever beat's threshold.

    202 ``{"job": id}`` (``paraqd``, ``pap``); 409 ``{"detail"}`` when the kind does not learn from
    labels (``stead``: "no generator yet"), when annotators have produced no gold label it can use, or when a retrain of that
    kind is already queued or running (then ``{"detail", "job"}``); 404 for an unknown kind.
    """

    permission_classes = [IsStaff]

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=kind_names())],
        responses={
            202: inline_serializer("RetrainStarted", {"job": serializers.IntegerField()}),
            409: inline_serializer("RetrainRefused", {"detail": serializers.CharField(),
                                                      "job": serializers.IntegerField(required=False)}),
        },
    )
    def post(self, request, kind: str):
        if kind not in kind_names():
            raise NotFound(f"no model kind {kind!r}; expected one of {', '.join(kind_names())}")
        try:
            job = model_retrain_start(kind=kind, user=request.user, force=True)
        except RetrainBusy as exc:
            return Response({"detail": str(exc), "job": exc.job.pk}, status=status.HTTP_409_CONFLICT)
        except RetrainError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"job": job.pk}, status=status.HTTP_202_ACCEPTED)


class ModelCalibrateApi(APIView):
    """``POST models/{kind}/calibrate/`` (staff): refit the active judge's threshold and probability
    calibration on the validation pairs (``modelhub.calibration``; seconds of work).

    202 ``{"job": id}`` (``paraqd``, ``judge``); 409 ``{"detail"}`` when there is no active judge
    of that kind; 404 for a kind that is not a judge.
    """

    permission_classes = [IsStaff]

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=["paraqd", "judge"])],
        responses={
            202: inline_serializer("CalibrationStarted", {"job": serializers.IntegerField()}),
            409: inline_serializer("CalibrationRefused", {"detail": serializers.CharField()}),
        },
    )
    def post(self, request, kind: str):
        if kind not in judge_kinds():
            raise NotFound(f"{kind!r} is not a judge; expected one of {', '.join(judge_kinds())}")
        try:
            job = calibrate_start(kind=kind, user=request.user)
        except CalibrationError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"job": job.pk}, status=status.HTTP_202_ACCEPTED)


class JudgeRefitApi(APIView):
    """``POST models/judge/refit/`` (staff): refit the deciding judge on the annotators' gold labels
    (``modelhub.kinds.judge.refit``; seconds of work) → 200 ``{"version", "promoted", "reason", …}``;
    409 ``{"detail"}`` when there is no judge or not enough gold to learn from."""

    permission_classes = [IsStaff]

    @extend_schema(request=None, responses={
        200: inline_serializer("JudgeRefit", {"version": serializers.IntegerField(), "base": serializers.IntegerField(),
                                              "promoted": serializers.BooleanField(), "reason": serializers.CharField(),
                                              "train": serializers.IntegerField(), "heldout": serializers.IntegerField()}),
        409: inline_serializer("JudgeRefitRefused", {"detail": serializers.CharField()})})
    def post(self, request):
        try:
            result = deciding_judge_refit(user=request.user)
        except UserError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(result)
